import Foundation
import Logging
import PostgresNIO
import UtensilCatalogModel

/// Ingest: new utensils, new photos for existing ones, and the decoder-crash counts.
extension PostgresCatalog {
    /// One statement for the whole batch, its own transaction: every row that holds no claim
    /// already taken goes in (`ON CONFLICT DO NOTHING` over every unique index), and the decoder
    /// crashes of the batch's files are forgotten; one round trip in all. Only a row that did
    /// not go in costs more: its refusal is looked up after (the holder of its source, name or
    /// content claim, committed by then). A refused drop is rejected or already ingested, so
    /// forgetting its crashes too loses nothing.
    public func insert(batch records: [UtensilRecord]) async throws(CatalogError) -> [CatalogError?] {
        if records.isEmpty { return [] }
        let logger = logger
        return try await read { connection in
            var inserted = Set<UUID>()
            let rows = try await connection.query(Self.insertion(ofBatch: records[...]), logger: logger)
            for try await id in rows.decode(UUID.self) { inserted.insert(id) }
            var refused: [CatalogError?] = []
            refused.reserveCapacity(records.count)
            for record in records {
                refused.append(inserted.contains(record.id) ? nil : try await Self.whyRefused(record, on: connection, logger: logger))
            }
            return refused
        }
    }

    /// The INSERT of ``insert(batch:)``: the rows (``insertion(ofAll:)``) skipped on any
    /// claim's conflict, returning the ids that went in, after a DELETE of their crash counts.
    static func insertion(ofBatch records: ArraySlice<UtensilRecord>) -> PostgresQuery {
        let identities = records.compactMap { $0.sourceKey.map { String(UtensilRecord.fileIdentity(ofSourceKey: $0)) } }
        var sql = PostgresQuery.StringInterpolation(literalCapacity: 400 + 60 * records.count, interpolationCount: 1 + 20 * records.count)
        sql.appendLiteral("WITH forgotten AS (DELETE FROM decoder_crashes WHERE source_key = ANY(")
        sql.appendInterpolation(identities)
        sql.appendLiteral(")) ")
        appendInsertion(of: records, to: &sql)
        sql.appendLiteral(" ON CONFLICT DO NOTHING RETURNING id")
        return PostgresQuery(stringInterpolation: sql)
    }

    /// Why `record` did not go in: the claim of another utensil it clashes with, looked up in
    /// the order the engine's own checks go (this very drop already in, then the name, then
    /// the photo); unavailable (the caller tries again) when its holder went away meanwhile.
    static func whyRefused(_ record: UtensilRecord, on connection: PostgresConnection, logger: Logger) async throws -> CatalogError {
        let claims: [(PostgresFailure.Claim, String?)] = [
            (.source, record.sourceKey), (.name, record.nameClaim), (.content, record.contentClaim),
        ]
        for (claim, key) in claims where key != nil {
            let refusal = try await refusal(claim, of: record, on: connection, logger: logger)
            if case .unavailable = refusal { continue }
            return refusal
        }
        return .unavailable(code: -1, detail: "PostgreSQL: the utensil holding a claim of \(record.name) changed meanwhile")
    }

    public func replacePhoto(with photo: UtensilRecord) async throws(CatalogError) -> UtensilRecord {
        let logger = logger
        return try await transaction { connection in
            let current = try await Self.utensil(
                "SELECT \(unescaped: UtensilColumns.list) FROM utensils WHERE id = \(photo.id) FOR UPDATE",
                on: connection, logger: logger)
            guard let current, current.trashedAt == nil else { throw CatalogError.notFound }
            let update: PostgresQuery = """
                UPDATE utensils SET extension = \(photo.fileExtension), width = \(photo.width), height = \(photo.height),
                    bytes = \(photo.bytes), sha256 = \(photo.sha256), source_key = \(photo.sourceKey),
                    content_claim = \(photo.contentClaim), added_by = \(photo.addedBy), host = \(photo.host),
                    fingerprint = \(photo.fingerprint), near_duplicate_of = \(photo.nearDuplicateOf),
                    near_duplicate_name = \(photo.nearDuplicateName), near_duplicate_distance = \(photo.nearDuplicateDistance),
                    updated_at = now()
                WHERE id = \(photo.id)
                """
            if let claim = try await Self.claiming(update, on: connection, logger: logger) {
                throw try await Self.refusal(claim, of: photo, on: connection, logger: logger)
            }
            if let sourceKey = photo.sourceKey {
                try await Self.forgetCrashes(of: sourceKey, on: connection, logger: logger)
            }
            return try await Self.utensil(
                "SELECT \(unescaped: UtensilColumns.list) FROM utensils WHERE id = \(photo.id)", on: connection, logger: logger)
                ?? current
        }
    }

    public func recordDecoderCrash(sourceKey: String) async throws(CatalogError) -> Int {
        let logger = logger
        return try await read { connection in
            let query: PostgresQuery = """
                INSERT INTO decoder_crashes (source_key, crashes) VALUES (\(sourceKey), 1)
                ON CONFLICT (source_key) DO UPDATE SET crashes = decoder_crashes.crashes + 1
                RETURNING crashes
                """
            return try await Self.value(Int.self, query, on: connection, logger: logger) ?? 0
        }
    }

    public func decoderCrashes(sourceKey: String) async throws(CatalogError) -> Int {
        let logger = logger
        return try await read { connection in
            try await Self.value(
                Int.self, "SELECT crashes FROM decoder_crashes WHERE source_key = \(sourceKey)", on: connection, logger: logger)
                ?? 0
        }
    }

    /// Forgets the decoder crashes of the file a committed source key came from.
    static func forgetCrashes(of sourceKey: String, on connection: PostgresConnection, logger: Logger) async throws {
        let identity = String(UtensilRecord.fileIdentity(ofSourceKey: sourceKey))
        try await connection.query("DELETE FROM decoder_crashes WHERE source_key = \(identity)", logger: logger)
    }
}
