/// What `check` found.
public struct CheckReport: Codable, Sendable, Equatable {
    /// SQLite's `PRAGMA integrity_check` lines: `["ok"]` when sound.
    public var integrity: [String]
    /// Ids of rows whose original or thumbnail is missing.
    public var rowsWithoutFiles: [String]
    /// Absolute paths in `originals/` or `thumbnails/` that no row owns.
    public var filesWithoutRows: [String]
    /// Whether everything above is sound.
    public var ok: Bool

    /// A report whose `ok` follows from the findings.
    public init(integrity: [String], rowsWithoutFiles: [String], filesWithoutRows: [String]) {
        self.integrity = integrity
        self.rowsWithoutFiles = rowsWithoutFiles
        self.filesWithoutRows = filesWithoutRows
        self.ok = integrity == ["ok"] && rowsWithoutFiles.isEmpty && filesWithoutRows.isEmpty
    }
}
