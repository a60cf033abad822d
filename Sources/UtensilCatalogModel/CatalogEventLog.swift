import Foundation

/// The catalog's numbered record of events, shared by every host of the catalog: each event
/// a host publishes is appended under a `seq` that only grows across the whole catalog, so
/// that a follower that was away (a reconnecting gallery, `utensilctl events --since`, a host
/// cut off from the catalog) can read what it missed.
///
/// What every implementation must keep:
/// - `seq`s are assigned in commit order: once a reader has seen `seq` N, no event with a
///   smaller `seq` appears later (a reader that follows by "after the last I saw" misses
///   nothing);
/// - a `seq` is never used twice, also after older events were pruned;
/// - only the newest ``CatalogEventLogLimits/kept`` events (at least) are kept.
public protocol CatalogEventLog: Sendable {
    /// Appends this host's events, in order, in one transaction; returns their `seq`s.
    func appendEvents(_ payloads: [String], host: String) async throws(CatalogError) -> [Int64]
    /// The events after `seq`, oldest first, at most `limit`.
    func events(after seq: Int64, limit: Int) async throws(CatalogError) -> [CatalogEvent]
    /// The oldest and the newest `seq` kept, or nil when no event is kept.
    func eventRange() async throws(CatalogError) -> ClosedRange<Int64>?
    /// Forgets all but the newest `keeping` events.
    func pruneEvents(keeping: Int) async throws(CatalogError)
}

/// One event in a ``CatalogEventLog``.
public struct CatalogEvent: Sendable, Equatable {
    /// Its number across the whole catalog.
    public var seq: Int64
    /// The `host_name` of the host that published it.
    public var host: String
    /// What was published (for utensild, the event's JSON).
    public var payload: String

    public init(seq: Int64, host: String, payload: String) {
        self.seq = seq
        self.host = host
        self.payload = payload
    }
}

/// How much of the event log is kept.
public enum CatalogEventLogLimits {
    /// Events kept for followers that come back: a gallery left open through an outage, a
    /// host cut off for a while. Older ones are pruned.
    public static let kept = 10_000
}
