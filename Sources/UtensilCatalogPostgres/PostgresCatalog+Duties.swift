import Foundation
import Logging
import PostgresNIO
import UtensilCatalogModel

/// The duties one host at a time does (the table `duties`, migration `v2-duties`):
/// ``CatalogDuties``, which every ``CatalogBackend`` is.
extension PostgresCatalog {
    public func claimDuty(_ duty: String, for host: String, now: Date, until: Date) async throws(CatalogError) -> Bool {
        let logger = logger
        return try await read { connection in
            // One statement: the row is taken when it is new, already this host's, or its lease
            // ran out; a row comes back only then. Concurrent claims queue on the row's lock.
            // Its commit does not wait for the WAL flush (`synchronous_commit` off for this
            // transaction alone): other hosts see the claim at once, and a claim that a server
            // crash loses is only taken again, so it need not cost every drop a flush.
            let rows = try await connection.query(
                """
                INSERT INTO duties (name, holder, until)
                SELECT \(duty), \(host), \(until) FROM (SELECT set_config('synchronous_commit', 'off', true)) AS asynchronous
                ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, until = excluded.until
                WHERE duties.holder = excluded.holder OR duties.until < \(now)
                RETURNING holder
                """, logger: logger)
            var held = false
            for try await _ in rows.decode(String.self) { held = true }
            return held
        }
    }

    public func forgetDuties(expiredBefore before: Date) async throws(CatalogError) -> Int {
        let logger = logger
        return try await read { connection in
            let rows = try await connection.query("DELETE FROM duties WHERE until < \(before) RETURNING name", logger: logger)
            var forgotten = 0
            for try await _ in rows.decode(String.self) { forgotten += 1 }
            return forgotten
        }
    }
}
