import Foundation
import UtensilCatalogModel
import UtensilCore

/// Changes of a utensil's row alone: its name and its category. Files are named by id, so
/// neither touches a file; each is one transaction, so a crash leaves it done or not done.
extension UtensilStore {
    /// Renames a utensil (not one in the trash); the name must be one a dropped file could
    /// carry (``CarriedName``) and, when names are unique, is claimed.
    /// - Returns: the utensil as it was and as it is now.
    public func rename(id: UUID, to newName: String) async throws(StoreError) -> (previous: UtensilRecord, renamed: UtensilRecord) {
        let previous = try await find(id.uuidString, byIDOnly: true)  // An unknown id is told before a bad name.
        let name: UtensilName
        do {
            name = try CarriedName.utensilName(newName)
        } catch {
            throw .invalidName(error.message)
        }
        let settings = settings
        let renamed = try await fromCatalog { () async throws(CatalogError) in
            try await catalog.rename(
                id: id, name: name.value, nameKey: name.uniquenessKey, searchKey: name.searchKey,
                claim: settings.claimsNames)
        }
        faults.reached(.renameCommitted)
        return (previous, renamed)
    }

    /// Sets a utensil's category, or clears it with nil; the category must be a folder name the
    /// inbox watches (``CarriedName``).
    public func setCategory(id: UUID, to newCategory: String?) async throws(StoreError) -> UtensilRecord {
        _ = try await find(id.uuidString, byIDOnly: true)  // An unknown id is told before a bad category.
        var category: UtensilName?
        if let newCategory {
            do {
                category = try CarriedName.category(newCategory)
            } catch {
                throw .invalidName(error.message)
            }
        }
        return try await fromCatalog { () async throws(CatalogError) in try await catalog.setCategory(id: id, to: category) }
    }
}

/// Categories as a whole: rows alone, one transaction each.
extension UtensilStore {
    /// Renames the category `old` to `new` (a folder name the inbox watches, ``CarriedName``);
    /// into an existing category, merges.
    public func renameCategory(_ old: String, to new: String) async throws(StoreError) -> CatalogCategoryChange {
        let name: UtensilName
        do {
            name = try CarriedName.category(new)
        } catch {
            throw .invalidName(error.message)
        }
        do {
            return try await catalog.renameCategory(old, to: name, at: Date())
        } catch CatalogError.notFound {
            throw Self.noSuchCategory(old)
        } catch {
            throw StoreError(error)
        }
    }

    /// Deletes the category `name`: its utensils become uncategorised.
    public func deleteCategory(_ name: String) async throws(StoreError) -> CatalogCategoryChange {
        do {
            return try await catalog.deleteCategory(name, at: Date())
        } catch CatalogError.notFound {
            throw Self.noSuchCategory(name)
        } catch {
            throw StoreError(error)
        }
    }

    private static func noSuchCategory(_ name: String) -> StoreError {
        .notFound("No category is called \(name); `utensilctl categories` lists them.")
    }
}
