import Foundation

extension ControlCommand {
    /// `hosts`: the hosts sharing the catalog, from their heartbeats.
    public static let hosts = ControlCommand("hosts", replyKey: "hosts", access: .reads, decode: { _ in .hosts })
}

extension ControlCall where Reply == [HostInfo] {
    /// Every host that wrote a heartbeat into the catalog, in name order.
    public static var hosts: Self { Self(.hosts) }
}

/// One host sharing the catalog, as `hosts` shows it: from the heartbeat it writes into the
/// catalog at start, every 10 seconds, and when it stops.
public struct HostInfo: ControlReplyElement {
    /// Whether the host is running.
    public enum State: String, Codable, Sendable, CaseIterable {
        /// It beat within the last 30 seconds (three beats) and has not stopped.
        case up
        /// It stopped, or has not beaten for over 30 seconds (killed, hung, cut off).
        case gone
    }

    /// Its `host_name`.
    public var name: String
    /// The utensild version it runs.
    public var version: String
    /// The newest catalog schema its utensild knows (how many of the catalog's migrations it
    /// knows); nil for a host of a version that does not say (always written, as `null`).
    @WrittenAsNull public var schema: Int?
    public var state: State
    /// When its utensild started.
    public var startedAt: Date
    /// Its latest heartbeat.
    public var lastSeen: Date
    /// When it stopped gracefully; nil while it runs or when it died without saying so
    /// (always written, as `null`).
    @WrittenAsNull public var stoppedAt: Date?
    /// Drops waiting on it, at its latest heartbeat.
    public var queued: Int
    /// Drops it ingested since it started.
    public var ingested: Int
    /// Drops it rejected since it started.
    public var rejected: Int

    public init(
        name: String, version: String, schema: Int? = nil, state: State, startedAt: Date, lastSeen: Date,
        stoppedAt: Date? = nil, queued: Int, ingested: Int, rejected: Int
    ) {
        self.name = name
        self.version = version
        self.schema = schema
        self.state = state
        self.startedAt = startedAt
        self.lastSeen = lastSeen
        self.stoppedAt = stoppedAt
        self.queued = queued
        self.ingested = ingested
        self.rejected = rejected
    }
}
