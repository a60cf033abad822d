import UtensilControlProtocol

/// `utensilctl check` for people.
enum CheckView {
    static func render(_ report: CheckReport, style: Style) -> [String] {
        var lines: [String] = []
        let integrityOK = report.integrity == ["ok"]
        lines.append("database integrity  " + (integrityOK ? style.green("ok") : style.red("damaged")))
        if !integrityOK { lines += report.integrity.map { "  " + TerminalText.escaped($0) } }
        lines.append("rows without files  " + count(report.rowsWithoutFiles.count, style))
        lines += report.rowsWithoutFiles.map { "  " + TerminalText.escaped($0) }
        lines.append("files without rows  " + count(report.filesWithoutRows.count, style))
        lines += report.filesWithoutRows.map { "  " + TerminalText.escaped($0) }
        lines.append("cut-off uploads     " + count(report.uploadLeftovers.count, style))
        lines += report.uploadLeftovers.map { "  " + TerminalText.escaped($0) }
        lines.append("staged leftovers    " + count(report.stagedLeftovers.count, style))
        lines += report.stagedLeftovers.map { "  " + TerminalText.escaped($0) }
        lines.append(report.ok ? style.green("The catalog is consistent.") : style.red("The catalog is inconsistent."))
        return lines
    }

    /// `2 rows without files, 1 file without a row`, for the one-line error.
    static func summary(_ report: CheckReport) -> String {
        var parts: [String] = []
        if report.integrity != ["ok"] { parts.append("the database fails its integrity check") }
        if !report.rowsWithoutFiles.isEmpty {
            parts.append(Formats.count(report.rowsWithoutFiles.count, "row") + " without files")
        }
        if !report.filesWithoutRows.isEmpty {
            parts.append(Formats.count(report.filesWithoutRows.count, "file") + " without a row")
        }
        if !report.uploadLeftovers.isEmpty {
            parts.append(Formats.count(report.uploadLeftovers.count, "cut-off upload") + " in the inbox")
        }
        if !report.stagedLeftovers.isEmpty {
            parts.append(Formats.count(report.stagedLeftovers.count, "staged file") + " left by an interrupted operation")
        }
        return parts.isEmpty ? "the daemon reports a problem" : parts.joined(separator: ", ")
    }

    private static func count(_ value: Int, _ style: Style) -> String {
        value == 0 ? style.green("none") : style.red("\(value)")
    }
}
