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
            var bindings = PostgresBindings()
            bindings.append(duty)
            bindings.append(host)
            bindings.append(until)
            bindings.append(now)
            let rows = try await connection.query(
                PostgresQuery(unsafeSQL: PostgresLookupSQL.claim(first: 1), binds: bindings), logger: logger)
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
