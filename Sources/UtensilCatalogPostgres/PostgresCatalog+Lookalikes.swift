import Foundation
import Logging
import PostgresNIO
import UtensilCatalogModel

/// Look-alikes: utensils found by their photo's fingerprint (migration `v6-fingerprints`).
extension PostgresCatalog {
    /// One statement: per block, an index-only scan of the entries whose block is among the
    /// probed values and whose whole distance (`bit_count`) is within; the union of the four
    /// joined to the rows outside the trash. Beyond ``FingerprintBlocks/indexedDistance`` every
    /// fingerprint is read.
    public func lookalikes(of fingerprint: Int64, within maximumDistance: Int, limit: Int) async throws(CatalogError) -> [LookalikeMatch] {
        guard maximumDistance >= 0, limit > 0 else { return [] }
        let logger = logger
        var bindings = PostgresBindings()
        bindings.append(fingerprint)
        bindings.append(maximumDistance)
        bindings.append(limit)
        let distance = "bit_count((fingerprint # $1)::bit(64))"
        var near = "SELECT id, \(distance) AS distance FROM utensils WHERE fingerprint IS NOT NULL AND \(distance) <= $2"
        if maximumDistance <= FingerprintBlocks.indexedDistance {
            var scans: [String] = []
            for (block, values) in FingerprintBlocks.probes(of: fingerprint, within: maximumDistance).enumerated() {
                bindings.append(values)
                scans.append(
                    "SELECT id, \(distance) AS distance FROM utensils WHERE \(FingerprintBlocks.expression(block)) = ANY($\(4 + block)) AND \(distance) <= $2")
            }
            near = scans.joined(separator: " UNION ")
        }
        let query = PostgresQuery(unsafeSQL: """
            SELECT \(UtensilColumns.qualified("u")), near.distance FROM (\(near)) near JOIN utensils u ON u.id = near.id
            WHERE u.trashed_at IS NULL
            ORDER BY near.distance, u.created_at, u.id LIMIT $3
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

    public func nearDuplicatePairs(limit: Int) async throws(CatalogError) -> [NearDuplicatePair] {
        guard limit > 0 else { return [] }
        let logger = logger
        let query: PostgresQuery = """
            SELECT \(unescaped: UtensilColumns.qualified("c")), \(unescaped: UtensilColumns.qualified("o"))
            FROM utensils c JOIN utensils o ON o.id = c.near_duplicate_of
            WHERE c.near_duplicate_of IS NOT NULL AND c.trashed_at IS NULL AND o.trashed_at IS NULL
                AND NOT EXISTS (
                    SELECT 1 FROM not_a_copy n WHERE n.utensil_id = LEAST(c.id, o.id) AND n.other_id = GREATEST(c.id, o.id))
            ORDER BY c.created_at DESC, c.id DESC LIMIT \(limit)
            """
        return try await read { connection in
            var pairs: [NearDuplicatePair] = []
            for try await row in try await connection.query(query, logger: logger) {
                let columns = row.makeRandomAccess()
                let copy = try UtensilColumns.record(columns)
                guard let near = copy.nearDuplicate else { continue }
                pairs.append(NearDuplicatePair(
                    copy: copy, original: try UtensilColumns.record(columns, from: UtensilColumns.count), distance: near.distance))
            }
            return pairs
        }
    }

    public func markNotACopy(_ id: UUID, _ other: UUID) async throws(CatalogError) {
        let logger = logger
        let found = try await read { connection in
            try await Self.value(
                Int.self, """
                    WITH pair AS (
                        SELECT LEAST(\(id), \(other)) AS utensil_id, GREATEST(\(id), \(other)) AS other_id
                        WHERE (SELECT count(*) FROM utensils WHERE id IN (\(id), \(other))) = CASE WHEN \(id) = \(other) THEN 1 ELSE 2 END
                    ), marked AS (
                        INSERT INTO not_a_copy (utensil_id, other_id) SELECT utensil_id, other_id FROM pair ON CONFLICT DO NOTHING
                    ), cleared AS (
                        UPDATE utensils SET near_duplicate_of = NULL, near_duplicate_name = NULL, near_duplicate_distance = NULL
                        WHERE (id = \(id) AND near_duplicate_of = \(other)) OR (id = \(other) AND near_duplicate_of = \(id))
                    )
                    SELECT count(*)::integer FROM pair
                    """, on: connection, logger: logger)
        }
        if found != 1 { throw CatalogError.notFound }
    }

    public func setFingerprint(id: UUID, to fingerprint: Int64, ofPhoto sha256: String) async throws(CatalogError) -> Bool {
        let logger = logger
        return try await read { connection in
            try await Self.value(
                Int.self, """
                    WITH changed AS (
                        UPDATE utensils SET fingerprint = \(fingerprint) WHERE id = \(id) AND sha256 = \(sha256) RETURNING 1
                    )
                    SELECT count(*)::integer FROM changed
                    """, on: connection, logger: logger) == 1
        }
    }

    public func fingerprints(after id: UUID?, limit: Int) async throws(CatalogError) -> [IdentifiedFingerprint] {
        guard limit > 0 else { return [] }
        let logger = logger
        return try await read { connection in
            var page: [IdentifiedFingerprint] = []
            let query: PostgresQuery = if let id {
                """
                SELECT id, fingerprint FROM utensils WHERE id > \(id) AND fingerprint IS NOT NULL AND trashed_at IS NULL
                ORDER BY id LIMIT \(limit)
                """
            } else {
                """
                SELECT id, fingerprint FROM utensils WHERE fingerprint IS NOT NULL AND trashed_at IS NULL
                ORDER BY id LIMIT \(limit)
                """
            }
            for try await (found, fingerprint) in try await connection.query(query, logger: logger).decode((UUID, Int64).self) {
                page.append(IdentifiedFingerprint(id: found, fingerprint: fingerprint))
            }
            return page
        }
    }

    public func fingerprints(createdSince since: Date) async throws(CatalogError) -> [IdentifiedFingerprint] {
        let logger = logger
        return try await read { connection in
            var found: [IdentifiedFingerprint] = []
            let query: PostgresQuery = """
                SELECT id, fingerprint FROM utensils
                WHERE created_at >= \(since) AND fingerprint IS NOT NULL AND trashed_at IS NULL
                """
            for try await (id, fingerprint) in try await connection.query(query, logger: logger).decode((UUID, Int64).self) {
                found.append(IdentifiedFingerprint(id: id, fingerprint: fingerprint))
            }
            return found
        }
    }

    public func unfingerprinted(among ids: [UUID]) async throws(CatalogError) -> Set<UUID> {
        if ids.isEmpty { return [] }
        let logger = logger
        return try await read { connection in
            var found = Set<UUID>()
            let rows = try await connection.query(
                "SELECT id FROM utensils WHERE fingerprint IS NULL AND id = ANY(\(ids))", logger: logger)
            for try await (id) in rows.decode(UUID.self) { found.insert(id) }
            return found
        }
    }
}
