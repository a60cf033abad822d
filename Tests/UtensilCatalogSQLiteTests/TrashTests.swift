import Foundation
import Testing
@testable import UtensilCatalogSQLite
import UtensilCatalogModel
import UtensilCore

/// The trash in the catalog: what it releases, what it keeps, and what restoring claims again.
@Suite("Catalog trash")
struct TrashTests {
    let catalog: SQLiteCatalog

    init() throws {
        let folder = try temporaryFolder("trash")
        catalog = try SQLiteCatalog(path: folder.appendingPathComponent("utensils.sqlite").path)
    }

    @Test func aTrashedUtensilFreesItsNameButKeepsItsContentAndRows() throws {
        let spoon = record("Spoon", sha: "abc", category: "Cutlery")
        try catalog.insert(spoon)
        let trashed = try catalog.trash(id: spoon.id)
        #expect(trashed.trashedAt != nil && trashed.nameClaim == nil)
        #expect(try catalog.count() == 0 && catalog.allIDs() == [spoon.id])
        #expect(try catalog.list(search: nil, sort: .name, limit: 10, after: nil).utensils.isEmpty)
        #expect(try catalog.categories().isEmpty)
        #expect(try catalog.utensil(nameKey: "spoon") == nil)
        #expect(try catalog.trashed().map(\.id) == [spoon.id])
        #expect(throws: CatalogError.notFound) { try catalog.trash(id: spoon.id) }
        #expect(throws: CatalogError.notFound) {
            try catalog.rename(id: spoon.id, name: "Fork", nameKey: "fork", searchKey: "fork", claim: true)
        }
        // The name is free; the same photo is still a duplicate.
        try catalog.insert(record("spoon"))
        #expect(throws: CatalogError.duplicateContent(existing: "Spoon")) { try catalog.insert(record("Ladle", sha: "abc")) }

        // Restoring claims the name again: refused while taken, fine under another.
        #expect(throws: CatalogError.duplicateName(existing: "spoon")) {
            try catalog.restore(id: spoon.id, as: nil, claimName: true)
        }
        let restored = try catalog.restore(id: spoon.id, as: try UtensilName(validating: "Old spoon"), claimName: true)
        #expect(restored.name == "Old spoon" && restored.nameClaim == "old spoon" && restored.trashedAt == nil)
        #expect(restored.updatedAt != nil && restored.sortKey == UtensilName.sortKey(for: "Old spoon"))
        #expect(try catalog.categories() == [CatalogCategory(name: "Cutlery", count: 1)])
        #expect(throws: CatalogError.notFound) { try catalog.restore(id: spoon.id, as: nil, claimName: true) }
    }

    @Test func onlyWhatWasTrashedLongEnoughIsDue() throws {
        let old = record("Whisk")
        let recent = record("Grater")
        try catalog.insert(old)
        try catalog.insert(recent)
        _ = try catalog.trash(id: old.id, at: Date(timeIntervalSinceNow: -3600))
        _ = try catalog.trash(id: recent.id)
        #expect(try catalog.trashed(before: Date(timeIntervalSinceNow: -60)).map(\.id) == [old.id])
        #expect(try catalog.trashed().map(\.id) == [old.id, recent.id])
    }
}
