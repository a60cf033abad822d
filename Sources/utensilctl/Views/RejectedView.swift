import Foundation
import UtensilControlProtocol

/// `utensilctl rejected` for people.
enum RejectedView {
    static func render(_ files: [RejectedInfo], style: Style, timeZone: TimeZone = .current) -> [String] {
        guard !files.isEmpty else { return ["No rejected files."] }
        var table = Table(columns: [
            .init(title: "FILE", maximumWidth: 40), .init(title: "REASON"), .init(title: "SIZE", alignsRight: true),
            .init(title: "REJECTED"), .init(title: "WHY"),
        ])
        table.rows = files.map { file in
            [file.file, file.reason, Formats.bytes(file.bytes), Formats.dateTime(file.rejectedAt, in: timeZone), file.message]
        }
        return table.render(style: style)
            + ["", "Put a file back into the inbox with `utensilctl retry FILE` (or `--all`) once it is fixed."]
    }
}
