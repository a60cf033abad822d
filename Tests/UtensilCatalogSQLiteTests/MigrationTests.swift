import Foundation
import GRDB
import Testing
@testable import UtensilCatalogSQLite
import UtensilCatalogModel
import UtensilCore

/// A catalog written before `v3-category-owner-trash-sort` opens with every utensil and all of
/// its data.
@Suite("Catalog migration")
struct MigrationTests {
    /// Builds a catalog file exactly as a daemon with the migrations up to `v2-search-trigrams`
    /// left it: those migrations only, and rows written with their columns.
    static func makeV2Catalog(at path: String) throws -> [(id: String, name: String, createdAt: String)] {
        let queue = try DatabaseQueue(path: path)
        try SQLiteCatalog.migrator.migrate(queue, upTo: "v2-search-trigrams")
        let rows = [
            ("6F1C2D3E-4A5B-4C6D-8E9F-0A1B2C3D4E5F", "Spoon", "2026-11-20 10:15:02.123"),
            ("0B9A4D8E-1C2F-4E3D-9A8B-7C6D5E4F3A2B", "Löffel", "2026-11-21 08:00:00.000"),
            ("11111111-2222-4333-8444-555555555555", "éclair tongs", "2026-11-22 09:30:00.500"),
        ]
        try queue.write { db in
            for (index, (id, name, createdAt)) in rows.enumerated() {
                let key = UtensilName.uniquenessKey(for: name)
                try db.execute(
                    sql: """
                        INSERT INTO utensil(id, name, nameKey, searchKey, extension, createdAt, width, height,
                                            bytes, sha256, sourceKey, nameClaim, contentClaim)
                        VALUES (?, ?, ?, ?, 'jpg', ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [id, name, key, UtensilName.searchKey(for: name), createdAt, 4032 + index, 3024 + index, 1000 + index,
                                "sha\(index)", "source\(index)", key, "sha\(index)"])
            }
        }
        try queue.close()
        return rows.map { (id: $0.0, name: $0.1, createdAt: $0.2) }
    }

    @Test func v2CatalogOpensWithEveryUtensilAndItsData() throws {
        let folder = try temporaryFolder("migration")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("utensils.sqlite").path
        let written = try Self.makeV2Catalog(at: path)

        let catalog = try SQLiteCatalog(path: path)
        #expect(try catalog.count() == written.count)
        for (index, row) in written.enumerated() {
            let id = try #require(UUID(uuidString: row.id))
            let record = try #require(try catalog.utensil(id: id))
            #expect(record.name == row.name)
            #expect(record.fileExtension == "jpg")
            #expect(record.width == 4032 + index && record.height == 3024 + index && record.bytes == 1000 + index)
            #expect(record.sha256 == "sha\(index)" && record.sourceKey == "source\(index)")
            #expect(record.nameClaim == UtensilName.uniquenessKey(for: row.name) && record.contentClaim == "sha\(index)")
            #expect(record.category == nil && record.addedBy == nil)
            #expect(record.updatedAt == nil && record.trashedAt == nil)
            #expect(record.sortKey == UtensilName.sortKey(for: row.name))
        }
        let created = try #require(try catalog.utensil(nameKey: "spoon")).createdAt
        #expect(abs(created.timeIntervalSince1970 - 1_795_169_702.123) < 0.001)
        // Searches and name order work on the migrated rows.
        #expect(try catalog.list(search: "loffel", sort: .name, limit: 10, after: nil).utensils.map(\.name) == ["Löffel"])
        #expect(try catalog.list(search: nil, sort: .name, limit: 10, after: nil).utensils.map(\.name)
            == ["éclair tongs", "Löffel", "Spoon"])
        // A `v2` name claim still refuses a duplicate.
        #expect(throws: CatalogError.duplicateName(existing: "Spoon")) {
            try catalog.insert(UtensilRecord(
                id: UUID(), name: "spoon", nameKey: "spoon", searchKey: "spoon", fileExtension: "png",
                createdAt: Date(), width: 1, height: 1, bytes: 1, sha256: "new", sourceKey: nil,
                nameClaim: "spoon", contentClaim: "new"))
        }
    }

    @Test func reopeningAMigratedCatalogChangesNothing() throws {
        let folder = try temporaryFolder("migration")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("utensils.sqlite").path
        _ = try Self.makeV2Catalog(at: path)
        let first = try SQLiteCatalog(path: path).all()
        let second = try SQLiteCatalog(path: path).all()
        #expect(first == second && first.count == 3)
    }
}
