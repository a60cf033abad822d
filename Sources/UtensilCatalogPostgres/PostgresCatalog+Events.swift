import Foundation
import Logging
import PostgresNIO
import UtensilCatalogModel

/// The event log (the table `events`, migration `v4-events`): ``CatalogEventLog``, which every
/// ``CatalogBackend`` is.
///
/// Hosts append at the same time, and a sequence alone hands out numbers in the order
/// transactions ask, not the order they commit: a reader could see 12 before 11 commits and
/// never read 11. So each append holds the transaction-scoped advisory lock ``eventsLockKey``
/// from before its first number until its commit: numbers are assigned in commit order.
extension PostgresCatalog {
    /// The advisory lock that orders appends: "utensilE" in ASCII.
    public static let eventsLockKey: Int64 = 0x7574_656E_7369_6C45

    public func appendEvents(_ payloads: [String], host: String) async throws(CatalogError) -> [Int64] {
        guard !payloads.isEmpty else { return [] }
        let logger = logger
        return try await transaction { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.eventsLockKey))", logger: logger)
            let rows = try await connection.query(
                """
                INSERT INTO events (host, payload)
                SELECT \(host), payload FROM unnest(\(payloads)::text[]) WITH ORDINALITY AS batch(payload, position)
                ORDER BY position
                RETURNING seq
                """, logger: logger)
            var seqs: [Int64] = []
            for try await seq in rows.decode(Int64.self) { seqs.append(seq) }
            return seqs.sorted()
        }
    }

    public func events(after seq: Int64, limit: Int) async throws(CatalogError) -> [CatalogEvent] {
        let logger = logger
        return try await read { connection in
            let rows = try await connection.query(
                "SELECT seq, host, payload FROM events WHERE seq > \(seq) ORDER BY seq LIMIT \(max(0, limit))", logger: logger)
            var events: [CatalogEvent] = []
            for try await (seq, host, payload) in rows.decode((Int64, String, String).self) {
                events.append(CatalogEvent(seq: seq, host: host, payload: payload))
            }
            return events
        }
    }

    public func eventRange() async throws(CatalogError) -> ClosedRange<Int64>? {
        let logger = logger
        return try await read { connection in
            let rows = try await connection.query("SELECT min(seq), max(seq) FROM events", logger: logger)
            var range: ClosedRange<Int64>?
            for try await (oldest, newest) in rows.decode((Int64?, Int64?).self) {
                if let oldest, let newest { range = oldest...newest }
            }
            return range
        }
    }

    public func pruneEvents(keeping: Int) async throws(CatalogError) {
        let logger = logger
        try await read { connection -> Void in
            try await connection.query(
                "DELETE FROM events WHERE seq <= (SELECT max(seq) FROM events) - \(Int64(max(0, keeping)))", logger: logger)
        }
    }
}
