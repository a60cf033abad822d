import Foundation

/// One host's heartbeat in a catalog that several hosts share: who it is, since when it runs,
/// when it last said so, and what it has done since it started. `utensilctl hosts` lists them.
///
/// Each host writes its own row (its ``name`` is the key) when it starts, every
/// ``interval`` while it runs, and once more, with ``stoppedAt`` set, when it stops
/// gracefully. A host is ``HostState/up`` while its last beat is at most ``goneAfter`` old
/// (three intervals: two missed beats are forgiven) and it has not said it stopped; else it is
/// ``HostState/gone`` (stopped, killed, or cut off from the catalog).
public struct HostHeartbeat: Sendable, Equatable {
    /// The host's name (`host_name`): 1–63 of `A–Z a–z 0–9 . -`.
    public var name: String
    /// The utensild version it runs.
    public var version: String
    /// The newest catalog schema its utensild knows (how many of the catalog's migrations it
    /// knows; see ``CatalogHostRegistry/knownSchema``); nil for a host of a version that did
    /// not say.
    public var schema: Int?
    /// When its utensild started.
    public var startedAt: Date
    /// Its latest beat.
    public var lastSeen: Date
    /// When it stopped gracefully; nil while it runs (or when it died without saying so).
    public var stoppedAt: Date?
    /// Drops it knows of but is not ingesting yet, at its latest beat.
    public var queued: Int
    /// Drops it ingested since it started.
    public var ingested: Int
    /// Drops it rejected since it started.
    public var rejected: Int

    public init(
        name: String, version: String, schema: Int? = nil, startedAt: Date, lastSeen: Date, stoppedAt: Date? = nil,
        queued: Int, ingested: Int, rejected: Int
    ) {
        self.name = name
        self.version = version
        self.schema = schema
        self.startedAt = startedAt
        self.lastSeen = lastSeen
        self.stoppedAt = stoppedAt
        self.queued = queued
        self.ingested = ingested
        self.rejected = rejected
    }

    /// How often a running host beats.
    public static let interval: Duration = .seconds(10)
    /// How old a running host's last beat may be before it counts as gone: three intervals.
    public static let goneAfter: Duration = interval * 3

    /// Whether the host is up at `now` (see ``HostHeartbeat``).
    public func state(at now: Date) -> HostState {
        if stoppedAt != nil { return .gone }
        let age = now.timeIntervalSince(lastSeen)
        return age <= Double(Self.goneAfter.components.seconds) ? .up : .gone
    }
}

/// Whether a host sharing the catalog is running.
public enum HostState: String, Sendable, Equatable, Codable {
    /// It beat within ``HostHeartbeat/goneAfter`` and has not stopped.
    case up
    /// It stopped, or has not beaten for longer than ``HostHeartbeat/goneAfter``.
    case gone
}
