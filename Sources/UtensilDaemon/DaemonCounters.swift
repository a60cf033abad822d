import Foundation

/// What the daemon has done since it started: shown in `STATUS=`, logs and `utensilctl status`.
public struct DaemonCounters: Sendable, Equatable {
    /// Drops known but not being ingested (settling, ready, or waiting for a retry).
    public var queued = 0
    /// Drops being ingested right now.
    public var inFlight = 0
    public var ingested = 0
    public var rejected = 0
    /// Drops left in the inbox for a retry (not their fault) since start.
    public var retries = 0
    /// Drops waiting out a back-off after a failure that was not their fault, right now.
    public var waitingForRetry = 0
    /// Of those, the drops whose last try found the catalog unavailable: they are tried again
    /// as soon as it answers.
    public var waitingForCatalog = 0
    /// Of those, the drops whose last try found the storage (a bucket) not answering.
    public var waitingForStorage = 0
    /// Drops that have settled but that their writer still holds open, right now.
    public var heldOpen = 0
    /// The last failure that was not a drop's fault, for people.
    public var lastError: String?
    public var lastErrorAt: Date?
    /// Whether the inbox is missing right now.
    public var inboxMissing = false

    public init() {}
}
