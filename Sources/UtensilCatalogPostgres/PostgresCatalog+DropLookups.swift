import Foundation
import Logging
import PostgresNIO
import UtensilCatalogModel

/// A drop's look-ups, each in one statement: every call to the server is a round trip and a
/// statement for it to run, both paid for by every drop.
extension PostgresCatalog {
    /// The claim (when asked: the INSERT of ``claimDuty(_:for:now:until:)``, in a data-modifying
    /// WITH, committed without waiting for the WAL flush), the utensil from the same file and
    /// the decoder crashes, in one statement.
    public func lookUp(drop fileIdentity: String, claiming claim: DutyClaim?) async throws(CatalogError) -> DropLookup {
        let from = fileIdentity + "@", to = fileIdentity + "A"
        let logger = logger
        return try await read { connection in
            // The utensil from the same file, and the crash count, beside what is asked first.
            let query: PostgresQuery
            if let claim {
                query = """
                    WITH claim AS (
                        INSERT INTO duties (name, holder, until)
                        SELECT \(claim.duty), \(claim.host), \(claim.until)
                        FROM (SELECT set_config('synchronous_commit', 'off', true)) AS asynchronous
                        ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, until = excluded.until
                        WHERE duties.holder = excluded.holder OR duties.until < \(claim.now)
                        RETURNING holder)
                    SELECT (SELECT count(*) FROM claim) > 0,
                        coalesce((SELECT crashes FROM decoder_crashes WHERE source_key = \(fileIdentity)), 0),
                        \(unescaped: UtensilColumns.qualified)
                    FROM (SELECT 1) AS one LEFT JOIN LATERAL (
                        SELECT * FROM utensils
                        WHERE source_key = \(fileIdentity) OR (source_key > \(from) AND source_key < \(to)) LIMIT 1
                    ) AS u ON true
                    """
            } else {
                query = """
                    SELECT true,
                        coalesce((SELECT crashes FROM decoder_crashes WHERE source_key = \(fileIdentity)), 0),
                        \(unescaped: UtensilColumns.qualified)
                    FROM (SELECT 1) AS one LEFT JOIN LATERAL (
                        SELECT * FROM utensils
                        WHERE source_key = \(fileIdentity) OR (source_key > \(from) AND source_key < \(to)) LIMIT 1
                    ) AS u ON true
                    """
            }
            var lookup = DropLookup(claimed: false, sameFile: nil, decoderCrashes: 0)
            for try await row in try await connection.query(query, logger: logger) {
                let cells = row.makeRandomAccess()
                lookup.claimed = try cells[0].decode(Bool.self)
                lookup.decoderCrashes = try cells[1].decode(Int.self)
                if try cells[2].decode(UUID?.self) != nil {
                    lookup.sameFile = try UtensilColumns.record(cells, from: 2)
                }
            }
            return lookup
        }
    }

    /// ``utensil(nameKey:)`` and ``utensil(sha256:)`` as the two rows of one statement.
    public func duplicates(nameKey: String, sha256: String) async throws(CatalogError) -> DuplicateCandidates {
        let logger = logger
        return try await read { connection in
            let query: PostgresQuery = """
                SELECT true, \(unescaped: UtensilColumns.list) FROM (
                    SELECT * FROM utensils WHERE name_key = \(nameKey) AND trashed_at IS NULL
                    ORDER BY name_claim IS NULL, created_at LIMIT 1) AS by_name
                UNION ALL
                SELECT false, \(unescaped: UtensilColumns.list) FROM (
                    SELECT * FROM utensils WHERE sha256 = \(sha256) ORDER BY content_claim IS NULL LIMIT 1) AS by_content
                """
            var candidates = DuplicateCandidates(byName: nil, byContent: nil)
            for try await row in try await connection.query(query, logger: logger) {
                let cells = row.makeRandomAccess()
                let record = try UtensilColumns.record(cells, from: 1)
                if try cells[0].decode(Bool.self) { candidates.byName = record } else { candidates.byContent = record }
            }
            return candidates
        }
    }
}
