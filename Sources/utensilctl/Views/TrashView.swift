import Foundation
import UtensilControlProtocol

/// `utensilctl trash` for people.
enum TrashView {
    static func render(_ utensils: [UtensilInfo], style: Style, timeZone: TimeZone = .current) -> [String] {
        guard !utensils.isEmpty else { return ["The trash is empty."] }
        var table = Table(columns: [
            .init(title: "ID"), .init(title: "NAME", maximumWidth: UtensilListView.nameWidth), .init(title: "TRASHED"),
            .init(title: "PURGED"),
        ])
        table.rows = utensils.map { utensil in
            [
                utensil.id, utensil.name, utensil.trashedAt.map { Formats.dateTime($0, in: timeZone) } ?? "",
                utensil.purgeAt.map { Formats.dateTime($0, in: timeZone) } ?? "",
            ]
        }
        return table.render(style: style)
            + ["", "Bring one back with `utensilctl restore ID` (add --as NEW-NAME if its name was taken meanwhile)."]
    }
}
