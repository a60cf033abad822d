import Foundation
import UtensilControlProtocol

/// `utensilctl list` for people.
enum UtensilListView {
    static let nameWidth = 40
    static let categoryWidth = 24

    static func table(_ utensils: [UtensilInfo], timeZone: TimeZone = .current) -> Table {
        var table = Table(columns: [
            .init(title: "ID"), .init(title: "NAME", maximumWidth: nameWidth),
            .init(title: "CATEGORY", maximumWidth: categoryWidth), .init(title: "PIXELS", alignsRight: true),
            .init(title: "SIZE", alignsRight: true), .init(title: "CREATED"),
        ])
        table.rows = utensils.map { utensil in
            [
                utensil.id, utensil.name, utensil.category ?? "", "\(utensil.width)×\(utensil.height)",
                Formats.bytes(utensil.bytes), Formats.dateTime(utensil.createdAt, in: timeZone),
            ]
        }
        return table
    }

    /// What an empty catalog says instead of an empty table.
    static func emptyCatalog(inbox: String?) -> [String] {
        let folder = inbox.map { "the inbox, \(TerminalText.escaped($0))" } ?? "the daemon's inbox (see `utensilctl status`)"
        return [
            "The catalog is empty.",
            "Add the first utensil by dropping a photo named after it (for example Spoon.jpg or Whisk.png) into \(folder).",
        ]
    }

    /// The command line that fetches the page after this one.
    static func nextPageHint(
        cursor: String, search: String?, category: String? = nil, addedBy: String? = nil, favorites: Bool = false,
        sort: String?, limit: Int?
    ) -> String {
        var words = ["utensilctl", "list"]
        if let search { words += ["--search", ShellQuoting.quoted(search)] }
        if let category { words += ["--category", ShellQuoting.quoted(category)] }
        if let addedBy { words += ["--added-by", ShellQuoting.quoted(addedBy)] }
        if favorites { words.append("--favorites") }
        if let sort { words += ["--sort", sort] }
        if let limit { words += ["--limit", "\(limit)"] }
        words += ["--after", ShellQuoting.quoted(cursor)]
        return "More: " + words.joined(separator: " ")
    }
}

/// Quoting for a command line a person can paste into a POSIX shell.
enum ShellQuoting {
    static func quoted(_ word: String) -> String {
        let safe = word.unicodeScalars.allSatisfy {
            CharacterSet.alphanumerics.contains($0) || "-_.,:/=@+".unicodeScalars.contains($0)
        }
        if safe && !word.isEmpty { return word }
        return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
