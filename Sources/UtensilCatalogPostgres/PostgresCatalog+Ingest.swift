import Foundation
import Logging
import PostgresNIO
import UtensilCatalogModel

/// Ingest: new utensils, new photos for existing ones, and the decoder-crash counts.
extension PostgresCatalog {
    public func insert(batch records: [UtensilRecord]) async throws(CatalogError) -> [CatalogError?] {
        if records.isEmpty { return [] }
        let logger = logger
        return try await transaction { connection in
            var refused: [CatalogError?] = []
            refused.reserveCapacity(records.count)
            for record in records {
                if let claim = try await Self.claiming(Self.insertion(of: record), on: connection, logger: logger) {
                    refused.append(try await Self.refusal(claim, of: record, on: connection, logger: logger))
                    continue
                }
                if let sourceKey = record.sourceKey {
                    try await Self.forgetCrashes(of: sourceKey, on: connection, logger: logger)
                }
                refused.append(nil)
            }
            return refused
        }
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

    /// The INSERT of one new utensil, every column bound.
    static func insertion(of record: UtensilRecord) -> PostgresQuery {
        """
        INSERT INTO utensils (id, name, name_key, search_key, extension, created_at, width, height, bytes, sha256,
            source_key, name_claim, content_claim, category, category_key, added_by, updated_at, trashed_at, sort_key, host)
        VALUES (\(record.id), \(record.name), \(record.nameKey), \(record.searchKey), \(record.fileExtension),
            \(record.createdAt), \(record.width), \(record.height), \(record.bytes), \(record.sha256), \(record.sourceKey),
            \(record.nameClaim), \(record.contentClaim), \(record.category), \(record.categoryKey), \(record.addedBy),
            \(record.updatedAt), \(record.trashedAt), \(record.sortKey), \(record.host))
        """
    }

    /// Forgets the decoder crashes of the file a committed source key came from.
    static func forgetCrashes(of sourceKey: String, on connection: PostgresConnection, logger: Logger) async throws {
        let identity = String(UtensilRecord.fileIdentity(ofSourceKey: sourceKey))
        try await connection.query("DELETE FROM decoder_crashes WHERE source_key = \(identity)", logger: logger)
    }
}
