import Foundation
import GRDB
import UtensilCatalogModel
import UtensilCore

/// Categories as a whole: renaming (merging into an existing one) and deleting. Each is one
/// transaction over every utensil of the category, the trash too (a restored utensil comes
/// back into the category as it is now); the counts (`categoryCount`) follow by trigger.
extension SQLiteCatalog {
    /// Renames the category `old` (compared NFC, case-insensitively) to `new`; when `new` is
    /// another existing category, its utensils join that one, spelled as it is.
    /// - Throws: ``CatalogError/notFound`` when no utensil outside the trash has category `old`.
    public func renameCategory(_ old: String, to new: UtensilName, at date: Date = Date()) throws(CatalogError) -> CatalogCategoryChange {
        let oldKey = UtensilName.uniquenessKey(for: old)
        let newKey = new.uniquenessKey
        return try change { db in
            guard let from = try Self.spelling(of: oldKey, db) else { throw CatalogError.notFound }
            var target = new.value
            var merged = false
            if newKey != oldKey, let existing = try Self.spelling(of: newKey, db) {
                target = existing
                merged = true
            }
            let moved = try Self.count(in: oldKey, db)
            try db.execute(
                sql: "UPDATE utensil SET category = ?, categoryKey = ?, updatedAt = ? WHERE categoryKey = ?",
                arguments: [target, newKey, CatalogDate.value(date), oldKey])
            // Only the spelling changed: the count's row keeps the old one unless told.
            try db.execute(sql: "UPDATE categoryCount SET category = ? WHERE categoryKey = ?", arguments: [target, newKey])
            return CatalogCategoryChange(from: from, to: target, moved: moved, merged: merged, count: try Self.count(in: newKey, db))
        }
    }

    /// Deletes the category `name`: its utensils (the trash too) become uncategorised.
    /// - Throws: ``CatalogError/notFound`` when no utensil outside the trash has category `name`.
    public func deleteCategory(_ name: String, at date: Date = Date()) throws(CatalogError) -> CatalogCategoryChange {
        let key = UtensilName.uniquenessKey(for: name)
        return try change { db in
            guard let from = try Self.spelling(of: key, db) else { throw CatalogError.notFound }
            let moved = try Self.count(in: key, db)
            try db.execute(
                sql: "UPDATE utensil SET category = NULL, categoryKey = NULL, updatedAt = ? WHERE categoryKey = ?",
                arguments: [CatalogDate.value(date), key])
            return CatalogCategoryChange(from: from, to: nil, moved: moved, merged: false, count: 0)
        }
    }

    private func change(_ body: (Database) throws -> CatalogCategoryChange) throws(CatalogError) -> CatalogCategoryChange {
        do {
            return try writer.write(body)
        } catch let error as CatalogError {
            throw error
        } catch {
            throw CatalogError.from(error)
        }
    }

    /// How the category with this key is shown, if it has utensils outside the trash.
    private static func spelling(of key: String, _ db: Database) throws -> String? {
        try String.fetchOne(db, sql: "SELECT category FROM categoryCount WHERE categoryKey = ?", arguments: [key])
    }

    private static func count(in key: String, _ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT utensils FROM categoryCount WHERE categoryKey = ?", arguments: [key]) ?? 0
    }
}
