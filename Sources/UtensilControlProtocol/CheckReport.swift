/// What `check` found.
public struct CheckReport: Codable, Sendable, Equatable {
    /// SQLite's `PRAGMA integrity_check` lines: `["ok"]` when sound.
    public var integrity: [String]
    /// Ids of rows whose original or thumbnail is missing.
    public var rowsWithoutFiles: [String]
    /// Absolute paths in `originals/` or `thumbnails/` that no row owns.
    public var filesWithoutRows: [String]
    /// Absolute paths of files of cut-off web uploads left in the inbox (`.upload-*.part`).
    public var uploadLeftovers: [String]
    /// Whether everything above is sound.
    public var ok: Bool

    /// A report whose `ok` follows from the findings.
    public init(integrity: [String], rowsWithoutFiles: [String], filesWithoutRows: [String], uploadLeftovers: [String] = []) {
        self.integrity = integrity
        self.rowsWithoutFiles = rowsWithoutFiles
        self.filesWithoutRows = filesWithoutRows
        self.uploadLeftovers = uploadLeftovers
        self.ok = integrity == ["ok"] && rowsWithoutFiles.isEmpty && filesWithoutRows.isEmpty && uploadLeftovers.isEmpty
    }
}
