import Foundation
import UtensilControlProtocol

/// `utensilctl duplicates` for people: the pairs, then how to mark one that is not a copy.
enum DuplicatesView {
    static func render(_ pairs: [DuplicatePairInfo], style: Style) -> [String] {
        guard !pairs.isEmpty else { return ["No two utensils look alike."] }
        var table = Table(columns: [
            .init(title: "COPY"), .init(title: "LOOKS LIKE"), .init(title: "BITS", alignsRight: true),
            .init(title: "COPY ID"), .init(title: "ID"),
        ])
        table.rows = pairs.map { pair in
            [
                TerminalText.escaped(pair.copy.name), TerminalText.escaped(pair.original.name), "\(pair.distance)",
                pair.copy.id, pair.original.id,
            ]
        }
        return table.render(style: style)
            + ["", "Two different photos after all? `utensilctl duplicates --not-a-copy COPY LOOKS-LIKE` (names or ids) stops listing them."]
    }
}
