import Foundation

/// A `rethumb` run: which thumbnails it makes again and how far it is. `status` carries the
/// latest run (running or finished) as `"rethumb"`, `events` one as it starts, as it goes
/// (about every hundredth of the run) and when it finishes.
public struct RethumbInfo: Codable, Sendable, Equatable {
    /// What was asked for: `all`, `missing` (utensils whose thumbnail or preview file is
    /// missing, or whose row has no fingerprint) or `ids`.
    public enum Selection: String, Codable, Sendable, CaseIterable {
        case all, missing, ids
    }

    public var selection: Selection
    /// The thumbnail edge in pixels they are made at.
    public var size: Int
    /// Thumbnails to make in this run (for `missing`, known once the scan is done; until then
    /// those found so far).
    public var total: Int
    /// Made so far (`failed` included).
    public var done: Int
    /// Of `done`, those that could not be made (the journal says why, one by one).
    public var failed: Int
    public var startedAt: Date
    /// When the run finished; nil while it runs.
    public var finishedAt: Date?

    public init(
        selection: Selection, size: Int, total: Int, done: Int = 0, failed: Int = 0, startedAt: Date,
        finishedAt: Date? = nil
    ) {
        self.selection = selection
        self.size = size
        self.total = total
        self.done = done
        self.failed = failed
        self.startedAt = startedAt
        self.finishedAt = finishedAt
    }

    public var isRunning: Bool { finishedAt == nil }
}
