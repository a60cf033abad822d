import Foundation
import Logging
import PostgresNIO
import UtensilCatalogModel
import UtensilCore

/// Categories as a whole: their counts (kept in `category_counts` by the trigger), renaming
/// (merging into an existing one) and deleting, each one transaction over every utensil of
/// the category, the trash too.
extension PostgresCatalog {
    public func categories() async throws(CatalogError) -> [CatalogCategory] {
        let logger = logger
        return try await read { connection in
            var categories: [CatalogCategory] = []
            let rows = try await connection.query(
                "SELECT category, utensils FROM category_counts ORDER BY category_key", logger: logger)
            for try await (name, count) in rows.decode((String, Int).self) {
                categories.append(CatalogCategory(name: name, count: count))
            }
            return categories
        }
    }

    public func renameCategory(_ old: String, to new: UtensilName, at date: Date) async throws(CatalogError) -> CatalogCategoryChange {
        let oldKey = UtensilName.uniquenessKey(for: old)
        let newKey = new.uniquenessKey, newName = new.value
        let logger = logger
        return try await transaction { connection in
            guard case let (from, moved)? = try await Self.category(oldKey, on: connection, logger: logger) else {
                throw CatalogError.notFound
            }
            var target = newName
            var merged = false
            if newKey != oldKey, case let (existing, _)? = try await Self.category(newKey, on: connection, logger: logger) {
                target = existing
                merged = true
            }
            try await connection.query(
                "UPDATE utensils SET category = \(target), category_key = \(newKey), updated_at = \(date) WHERE category_key = \(oldKey)",
                logger: logger)
            // Only the spelling changed: the count's row keeps the old one unless told.
            try await connection.query(
                "UPDATE category_counts SET category = \(target) WHERE category_key = \(newKey)", logger: logger)
            let count = try await Self.category(newKey, on: connection, logger: logger)?.1 ?? 0
            return CatalogCategoryChange(from: from, to: target, moved: moved, merged: merged, count: count)
        }
    }

    public func deleteCategory(_ name: String, at date: Date) async throws(CatalogError) -> CatalogCategoryChange {
        let key = UtensilName.uniquenessKey(for: name)
        let logger = logger
        return try await transaction { connection in
            guard case let (from, moved)? = try await Self.category(key, on: connection, logger: logger) else {
                throw CatalogError.notFound
            }
            try await connection.query(
                "UPDATE utensils SET category = NULL, category_key = NULL, updated_at = \(date) WHERE category_key = \(key)",
                logger: logger)
            return CatalogCategoryChange(from: from, to: nil, moved: moved, merged: false, count: 0)
        }
    }

    /// How the category with this key is spelled and how many utensils outside the trash it
    /// has; nil when it has none. Locks its count row until the transaction ends.
    private static func category(
        _ key: String, on connection: PostgresConnection, logger: Logger
    ) async throws -> (String, Int)? {
        let rows = try await connection.query(
            "SELECT category, utensils FROM category_counts WHERE category_key = \(key) FOR UPDATE", logger: logger)
        for try await (name, count) in rows.decode((String, Int).self) { return (name, count) }
        return nil
    }
}
