import Foundation
import Testing
@testable import UtensilCatalogSQLite
import UtensilCatalogModel
import UtensilCore

/// Renaming, merging and deleting a category in the catalog: every utensil follows (the trash
/// too), the counts add up.
@Suite("Catalog categories managed")
struct CategoryManagementTests {
    let catalog: SQLiteCatalog

    init() throws {
        let folder = try temporaryFolder("categories")
        catalog = try SQLiteCatalog(path: folder.appendingPathComponent("utensils.sqlite").path)
    }

    func insert(_ name: String, category: String?) throws -> UtensilRecord {
        let key = UtensilName.uniquenessKey(for: name)
        let sha = UUID().uuidString
        let record = UtensilRecord(
            id: UUID(), name: name, nameKey: key, searchKey: UtensilName.searchKey(for: name), fileExtension: "jpg",
            createdAt: Date(), width: 1, height: 1, bytes: 1, sha256: sha, sourceKey: nil, nameClaim: key,
            contentClaim: sha, category: category)
        try catalog.insert(record)
        return record
    }

    func counts() throws -> [String: Int] {
        Dictionary(uniqueKeysWithValues: try catalog.categories().map { ($0.name, $0.count) })
    }

    @Test func renameMergeAndDelete() throws {
        _ = try insert("Santoku", category: "Knifes")
        _ = try insert("Paring", category: "knifes")
        let trashed = try insert("Cleaver", category: "Knifes")
        _ = try catalog.trash(id: trashed.id, at: Date())
        _ = try insert("Whisk", category: "Whisks")
        let wooden = try insert("Spoon", category: "Spoons")
        #expect(try counts() == ["Knifes": 2, "Whisks": 1, "Spoons": 1])

        // A plain rename: every spelling of the key follows, the trash too.
        let renamed = try catalog.renameCategory("KNIFES", to: UtensilName(validating: "Knives"))
        #expect(renamed == CatalogCategoryChange(from: "Knifes", to: "Knives", moved: 2, merged: false, count: 2))
        #expect(try counts() == ["Knives": 2, "Whisks": 1, "Spoons": 1])
        #expect(try catalog.utensil(id: trashed.id)?.category == "Knives")
        #expect(try catalog.utensil(id: trashed.id)?.updatedAt != nil)

        // Only the letter case: the category's spelling changes.
        #expect(try catalog.renameCategory("knives", to: UtensilName(validating: "KNIVES")).to == "KNIVES")
        #expect(try counts() == ["KNIVES": 2, "Whisks": 1, "Spoons": 1])

        // Into an existing category: a merge, spelled as that one is; the counts add up.
        let merged = try catalog.renameCategory("Spoons", to: UtensilName(validating: "knives"))
        #expect(merged == CatalogCategoryChange(from: "Spoons", to: "KNIVES", moved: 1, merged: true, count: 3))
        #expect(try counts() == ["KNIVES": 3, "Whisks": 1])
        #expect(try catalog.list(search: nil, category: "Knives", sort: .name, limit: 10, after: nil).utensils.count == 3)
        #expect(try catalog.utensil(id: wooden.id)?.category == "KNIVES")

        // Deleting: its utensils (the trash too) are in no category.
        let deleted = try catalog.deleteCategory("knives")
        #expect(deleted == CatalogCategoryChange(from: "KNIVES", to: nil, moved: 3, merged: false, count: 0))
        #expect(try counts() == ["Whisks": 1])
        #expect(try catalog.utensil(id: trashed.id)?.category == nil)
        #expect(try catalog.count() == 4)

        #expect(throws: CatalogError.notFound) { try catalog.deleteCategory("Knives") }
        #expect(throws: CatalogError.notFound) { try catalog.renameCategory("Nothing", to: UtensilName(validating: "Else")) }
    }
}
