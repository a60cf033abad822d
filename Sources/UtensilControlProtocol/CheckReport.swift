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
    /// Renditions any host's operations left staged (paths, or `s3://BUCKET/KEY`), for the
    /// sweeper to finish or remove once they are an hour old.
    public var stagedLeftovers: [String]
    /// Whether everything above is sound.
    public var ok: Bool

    /// A report whose `ok` follows from the findings.
    public init(
        integrity: [String], rowsWithoutFiles: [String], filesWithoutRows: [String], uploadLeftovers: [String] = [],
        stagedLeftovers: [String] = []
    ) {
        self.integrity = integrity
        self.rowsWithoutFiles = rowsWithoutFiles
        self.filesWithoutRows = filesWithoutRows
        self.uploadLeftovers = uploadLeftovers
        self.stagedLeftovers = stagedLeftovers
        self.ok = integrity == ["ok"] && rowsWithoutFiles.isEmpty && filesWithoutRows.isEmpty && uploadLeftovers.isEmpty
            && stagedLeftovers.isEmpty
    }

    private enum CodingKeys: String, CodingKey {
        case integrity, rowsWithoutFiles, filesWithoutRows, uploadLeftovers, stagedLeftovers, ok
    }

    /// A report of a daemon that does not list staged leftovers yet has none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        integrity = try container.decode([String].self, forKey: .integrity)
        rowsWithoutFiles = try container.decode([String].self, forKey: .rowsWithoutFiles)
        filesWithoutRows = try container.decode([String].self, forKey: .filesWithoutRows)
        uploadLeftovers = try container.decode([String].self, forKey: .uploadLeftovers)
        stagedLeftovers = try container.decodeIfPresent([String].self, forKey: .stagedLeftovers) ?? []
        ok = try container.decode(Bool.self, forKey: .ok)
    }
}
