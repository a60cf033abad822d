import Foundation
import GRDB
import Testing
@testable import UtensilCatalogSQLite
import UtensilCatalogModel
import UtensilCore

/// `categories` and `count` read counts kept by triggers; after every kind of change they must
/// equal a count of the rows themselves.
@Suite("Catalog category counts")
struct CategoryCountTests {
    let catalog: SQLiteCatalog

    init() throws {
        let folder = try temporaryFolder("categories")
        catalog = try SQLiteCatalog(path: folder.appendingPathComponent("utensils.sqlite").path)
    }

    /// The categories as counted from the rows, the way `categories` answered before the counts table.
    func counted() throws -> [CatalogCategory] {
        try catalog.read { db in
            try Row.fetchAll(db, sql: """
                SELECT min(category) AS category, count(*) AS utensils FROM utensil
                WHERE categoryKey IS NOT NULL AND trashedAt IS NULL GROUP BY categoryKey ORDER BY categoryKey
                """).map { CatalogCategory(name: $0["category"], count: $0["utensils"]) }
        }
    }

    @Test func countsFollowInsertsCategoryChangesTrashRestoreAndDeletes() throws {
        let knife = record("Knife", category: "Knives")
        let santoku = record("Santoku", category: "knives")  // the same category, spelt otherwise
        let whisk = record("Whisk", category: "Whisks")
        let spoon = record("Spoon", category: nil)
        #expect(try catalog.insert(batch: [knife, santoku, whisk, spoon]).allSatisfy { $0 == nil })
        #expect(try catalog.categories() == [CatalogCategory(name: "Knives", count: 2), CatalogCategory(name: "Whisks", count: 1)])
        #expect(try catalog.categories() == counted())
        #expect(try catalog.count() == 4)

        _ = try catalog.setCategory(id: spoon.id, to: try UtensilName(validating: "Spoons"))
        _ = try catalog.setCategory(id: whisk.id, to: nil)
        #expect(try catalog.categories() == [CatalogCategory(name: "Knives", count: 2), CatalogCategory(name: "Spoons", count: 1)])

        _ = try catalog.trash(id: knife.id)
        #expect(try catalog.categories() == [CatalogCategory(name: "Knives", count: 1), CatalogCategory(name: "Spoons", count: 1)])
        _ = try catalog.delete(id: knife.id)  // from the trash: counted already
        _ = try catalog.trash(id: santoku.id)
        #expect(try catalog.categories() == [CatalogCategory(name: "Spoons", count: 1)])
        #expect(try catalog.count() == 2)
        _ = try catalog.restore(id: santoku.id, as: nil, claimName: true)
        #expect(try catalog.categories() == [CatalogCategory(name: "knives", count: 1), CatalogCategory(name: "Spoons", count: 1)])
        _ = try catalog.delete(id: spoon.id)
        #expect(try catalog.categories() == [CatalogCategory(name: "knives", count: 1)])
        #expect(try catalog.categories() == counted())
        #expect(try catalog.count() == 2, "Santoku and Whisk; Knife and Spoon were deleted")
    }
}
