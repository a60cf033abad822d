import UtensilControlProtocol

/// `backup`'s output for people: a progress line on a terminal, then a summary.
enum BackupView {
    static func progress(_ line: BackupProgressInfo) -> String {
        switch line.phase {
        case .catalog:
            "Backing up: catalog written (\(Formats.count(line.total, "utensil"))), linking files …"
        case .files:
            "Backing up: \(line.done * 100 / max(line.total, 1))% (\(line.done) of \(Formats.count(line.total, "utensil")))"
        }
    }

    static func render(_ summary: BackupInfo) -> [String] {
        var lines = [
            "Backed up \(Formats.count(summary.utensils, "utensil")) (\(summary.trash) in the trash, \(Formats.count(summary.categories, "category", "categories"))) into \(TerminalText.escaped(summary.destination)).",
            "\(Formats.count(summary.files, "file")), \(Formats.bytes(Int(summary.bytes))): \(summary.linked) hard-linked, \(summary.copied) copied; checksums in backup.json.",
        ]
        if summary.missing > 0 {
            lines.append("\(Formats.count(summary.missing, "file")) (thumbnails) were missing and are not in it; `utensilctl rethumb --missing` makes them again.")
        }
        lines.append("Restore it with `utensild restore \(TerminalText.escaped(summary.destination))` while utensild is stopped.")
        return lines
    }
}
