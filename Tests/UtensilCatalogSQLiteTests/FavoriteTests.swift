import Foundation
import Testing
@testable import UtensilCatalogSQLite
import UtensilCatalogModel
import UtensilCore

/// Favorites in the catalog: per user, a filter of `list`, kept through the trash, gone with
/// the row.
@Suite("Catalog favorites")
struct FavoriteTests {
    let catalog: SQLiteCatalog

    init() throws {
        let folder = try temporaryFolder("favorites")
        catalog = try SQLiteCatalog(path: folder.appendingPathComponent("utensils.sqlite").path)
    }

    func names(favoriteOf user: String, search: String? = nil, category: String? = nil) throws -> [String] {
        try catalog.list(search: search, category: category, favoriteOf: user, sort: .name, limit: 50, after: nil)
            .utensils.map(\.name)
    }

    @Test func favoritesBelongToOneUserAndCombineWithTheOtherFilters() throws {
        let spoon = record("Spoon", category: "Cutlery")
        let whisk = record("Whisk")
        let ladle = record("Ladle", category: "Cutlery")
        for utensil in [spoon, whisk, ladle] { try catalog.insert(utensil) }
        _ = try catalog.setFavorite(id: spoon.id, of: "alice", true)
        _ = try catalog.setFavorite(id: spoon.id, of: "alice", true)  // Twice changes nothing.
        _ = try catalog.setFavorite(id: whisk.id, of: "alice", true)
        _ = try catalog.setFavorite(id: ladle.id, of: "bob", true)
        #expect(try names(favoriteOf: "alice") == ["Spoon", "Whisk"])
        #expect(try names(favoriteOf: "bob") == ["Ladle"])
        #expect(try names(favoriteOf: "carol").isEmpty)
        #expect(try names(favoriteOf: "alice", category: "cutlery") == ["Spoon"])
        #expect(try names(favoriteOf: "alice", search: "whi") == ["Whisk"])
        #expect(try names(favoriteOf: "alice", search: "spoon") == ["Spoon"])  // The trigram index.
        #expect(try catalog.favorites(of: "alice", among: [spoon.id, whisk.id, ladle.id]) == [spoon.id, whisk.id])
        _ = try catalog.setFavorite(id: whisk.id, of: "alice", false)
        _ = try catalog.setFavorite(id: whisk.id, of: "alice", false)
        #expect(try names(favoriteOf: "alice") == ["Spoon"])
        #expect(throws: CatalogError.notFound) { try catalog.setFavorite(id: UUID(), of: "alice", true) }
    }

    @Test func aFavoriteStaysThroughTheTrashAndGoesWithTheRow() throws {
        let spoon = record("Spoon")
        try catalog.insert(spoon)
        _ = try catalog.setFavorite(id: spoon.id, of: "alice", true)
        _ = try catalog.trash(id: spoon.id, at: Date())
        #expect(try names(favoriteOf: "alice").isEmpty)
        #expect(throws: CatalogError.notFound) { try catalog.setFavorite(id: spoon.id, of: "alice", true) }
        _ = try catalog.restore(id: spoon.id, as: nil, claimName: true)
        #expect(try names(favoriteOf: "alice") == ["Spoon"])
        _ = try catalog.delete(id: spoon.id)
        let left = try catalog.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM favorite") }
        #expect(left == 0)
    }
}
