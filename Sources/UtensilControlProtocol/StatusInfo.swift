import Foundation

/// What `status` reports about the running daemon.
public struct StatusInfo: Codable, Sendable, Equatable {
    /// The daemon's version, e.g. `0.1.0`.
    public var version: String
    public var pid: Int
    public var uptimeSeconds: Int
    /// Absolute path of the watched inbox.
    public var inbox: String
    /// Absolute path of the rejected folder.
    public var rejectedDir: String
    /// Absolute path of `state_dir`.
    public var stateDir: String
    /// Utensils in the catalog.
    public var utensils: Int
    /// Drops seen but not yet being ingested.
    public var queued: Int
    /// Drops being ingested now.
    public var inFlight: Int
    /// How long the longest-running ingest has been running, in seconds; nil (left out) when
    /// none runs, or from a daemon that does not say.
    public var oldestInFlightSeconds: Double?
    /// Drops waiting out a back-off after a failure that was not their fault; nil (left out)
    /// from a daemon that does not say.
    public var waitingForRetry: Int?
    /// Of those, the drops whose last try found the catalog unavailable (tried again as soon as
    /// it answers); nil (left out) from a daemon that does not say.
    public var waitingForCatalog: Int?
    /// Of those, the drops whose last try found the storage (a bucket) not answering; nil (left
    /// out) from a daemon that does not say.
    public var waitingForStorage: Int?
    /// Utensils ingested since the daemon started.
    public var ingested: Int
    /// Drops rejected since the daemon started.
    public var rejected: Int
    /// The last failure that was not a drop's fault (disk full …), or `nil` (JSON `null`, always written).
    @WrittenAsNull public var lastError: String?
    /// When `lastError` happened (for an outage of the catalog: since when); left out with no
    /// error.
    public var lastErrorAt: Date?
    /// Whether `lastError` has passed: nothing waits for a retry and the catalog answers; left
    /// out with no error.
    public var lastErrorPassed: Bool?
    /// How the inbox is watched: `inotify`, or `polling: <why>`.
    public var watching: String
    /// Whether the inbox folder is missing right now (the daemon waits for it).
    public var inboxMissing: Bool
    /// The latest `rethumb` run since the daemon started, running or finished; nil (left out
    /// of the JSON) when there was none.
    public var rethumb: RethumbInfo?
    /// Whether the storage of the renditions answers (a bucket; the local folder: whether it can
    /// be written), or since when it has not; nil (left out) from a daemon that does not say.
    public var storage: StorageHealth?

    public init(
        version: String, pid: Int, uptimeSeconds: Int, inbox: String, rejectedDir: String,
        stateDir: String, utensils: Int, queued: Int, inFlight: Int, ingested: Int, rejected: Int,
        lastError: String?, watching: String, inboxMissing: Bool
    ) {
        self.version = version
        self.pid = pid
        self.uptimeSeconds = uptimeSeconds
        self.inbox = inbox
        self.rejectedDir = rejectedDir
        self.stateDir = stateDir
        self.utensils = utensils
        self.queued = queued
        self.inFlight = inFlight
        self.ingested = ingested
        self.rejected = rejected
        self.lastError = lastError
        self.watching = watching
        self.inboxMissing = inboxMissing
        self.rethumb = nil
    }

    enum CodingKeys: String, CodingKey {
        case version, pid, uptimeSeconds, inbox, rejectedDir, stateDir, utensils, queued, inFlight
        case oldestInFlightSeconds, waitingForRetry, waitingForCatalog, waitingForStorage
        case ingested, rejected, lastError, lastErrorAt, lastErrorPassed, watching, inboxMissing, rethumb, storage
    }
}

/// `status`'s word on the storage: `ok`, or `unreachable` since when and why.
public struct StorageHealth: Codable, Sendable, Equatable {
    /// `ok` or `unreachable`.
    public var state: String
    /// Since when it has not answered (`unreachable` only).
    public var since: Date?
    /// Why, in the storage's words (`unreachable` only).
    public var detail: String?

    public static let ok = StorageHealth(state: "ok", since: nil, detail: nil)

    /// Not answering since `since`, for `detail`.
    public static func unreachable(since: Date, detail: String) -> StorageHealth {
        StorageHealth(state: "unreachable", since: since, detail: detail)
    }

    public init(state: String, since: Date?, detail: String?) {
        self.state = state
        self.since = since
        self.detail = detail
    }
}
