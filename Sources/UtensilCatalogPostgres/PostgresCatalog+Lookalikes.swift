import Foundation
import Logging
import PostgresNIO
import UtensilCatalogModel

/// Look-alikes: utensils found by their photo's fingerprint (migration `v6-fingerprints`).
extension PostgresCatalog {
    /// One statement: the rows whose blocks are among the probed values (a BitmapOr of the four
    /// block indexes), their whole distance counted by `bit_count` and checked in the server.
    public func lookalikes(of fingerprint: Int64, within maximumDistance: Int, limit: Int) async throws(CatalogError) -> [LookalikeMatch] {
        guard maximumDistance >= 0, limit > 0 else { return [] }
        let logger = logger
        var bindings = PostgresBindings()
        bindings.append(fingerprint)
        bindings.append(maximumDistance)
        bindings.append(limit)
        var blocks = "true"
        if maximumDistance <= FingerprintBlocks.indexedDistance {
            var terms: [String] = []
            for (block, values) in FingerprintBlocks.probes(of: fingerprint, within: maximumDistance).enumerated() {
                bindings.append(values)
                terms.append("\(FingerprintBlocks.expression(block)) = ANY($\(4 + block))")
            }
            blocks = "(" + terms.joined(separator: " OR ") + ")"
        }
        let distance = "bit_count((fingerprint # $1)::bit(64))"
        let query = PostgresQuery(unsafeSQL: """
            SELECT \(UtensilColumns.list), \(distance) FROM utensils
            WHERE \(blocks) AND \(distance) <= $2 AND trashed_at IS NULL
            ORDER BY \(distance), created_at, id LIMIT $3
            """, binds: bindings)
        return try await read { connection in
            var matches: [LookalikeMatch] = []
            for try await row in try await connection.query(query, logger: logger) {
                let columns = row.makeRandomAccess()
                matches.append(LookalikeMatch(
                    utensil: try UtensilColumns.record(columns), distance: Int(try columns[UtensilColumns.count].decode(Int64.self))))
            }
            return matches
        }
    }
}
