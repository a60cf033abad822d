import Foundation
import Logging
import PostgresNIO
import UtensilCatalogModel
import UtensilCore

/// Changes to one utensil: its name, its category, the trash, deletion. Each is one
/// transaction that locks the row (`FOR UPDATE`), checks it, changes it and reads it back.
extension PostgresCatalog {
    public func rename(id: UUID, name: String, nameKey: String, searchKey: String, claim: Bool) async throws(CatalogError) -> UtensilRecord {
        try await change(id, inTrash: false) { record in
            record.name = name
            record.nameKey = nameKey
            record.searchKey = searchKey
            record.nameClaim = claim ? nameKey : nil
            record.updatedAt = Date()
        }
    }

    public func setCategory(id: UUID, to category: UtensilName?) async throws(CatalogError) -> UtensilRecord {
        try await change(id, inTrash: false) { record in
            record.category = category?.value
            record.updatedAt = Date()
        }
    }

    public func trash(id: UUID, at date: Date) async throws(CatalogError) -> UtensilRecord {
        try await change(id, inTrash: false) { record in
            record.trashedAt = date
            record.nameClaim = nil
        }
    }

    public func restore(id: UUID, as newName: UtensilName?, claimName: Bool) async throws(CatalogError) -> UtensilRecord {
        try await change(id, inTrash: true) { record in
            if let newName {
                record.name = newName.value
                record.nameKey = newName.uniquenessKey
                record.searchKey = newName.searchKey
                record.updatedAt = Date()
            }
            record.trashedAt = nil
            record.nameClaim = claimName ? record.nameKey : nil
        }
    }

    public func delete(id: UUID) async throws(CatalogError) -> UtensilRecord {
        let logger = logger
        return try await transaction { connection in
            let deleted = try await Self.utensil(
                "DELETE FROM utensils WHERE id = \(id) RETURNING \(unescaped: UtensilColumns.list)", on: connection, logger: logger)
            guard let deleted else { throw CatalogError.notFound }
            return deleted
        }
    }

    /// Locks the utensil `id` (in the trash or not, as `inTrash` says; else ``CatalogError/notFound``),
    /// applies `edit` to it and writes back its name, keys, claims, category and dates; a claim
    /// another utensil holds is refused as the matching ``CatalogError``.
    private func change(
        _ id: UUID, inTrash: Bool, _ edit: @escaping @Sendable (inout UtensilRecord) -> Void
    ) async throws(CatalogError) -> UtensilRecord {
        let logger = logger
        return try await transaction { connection in
            let current = try await Self.utensil(
                "SELECT \(unescaped: UtensilColumns.list) FROM utensils WHERE id = \(id) FOR UPDATE", on: connection, logger: logger)
            guard var record = current, (record.trashedAt != nil) == inTrash else { throw CatalogError.notFound }
            edit(&record)
            let update: PostgresQuery = """
                UPDATE utensils SET name = \(record.name), name_key = \(record.nameKey), search_key = \(record.searchKey),
                    sort_key = \(record.sortKey), name_claim = \(record.nameClaim), category = \(record.category),
                    category_key = \(record.categoryKey), updated_at = \(record.updatedAt), trashed_at = \(record.trashedAt)
                WHERE id = \(id)
                """
            if let claim = try await Self.claiming(update, on: connection, logger: logger) {
                throw try await Self.refusal(claim, of: record, on: connection, logger: logger)
            }
            return record
        }
    }
}
