import Foundation
import GRDB
import Testing
@testable import UtensilCatalogSQLite
import UtensilCatalogModel
import UtensilCore

/// `CatalogFile.inspect` on real files: an older version's catalog is read whole (its rows'
/// keys made again, the file untouched) and written into a catalog of this version's schema;
/// a file that is not one is refused before a row is read.
@Suite("Reading a catalog file untrusted")
struct SQLiteCatalogFileTests {
    /// Rules that take every value: what is tested here is the reader's own checks.
    struct AnyRow: CatalogRowRules {
        func problem(with record: UtensilRecord) -> String? { nil }
        func problem(withUser user: String) -> String? { nil }
        func problem(with crash: CatalogDecoderCrash) -> String? { nil }
    }

    /// Rules that refuse one name.
    struct NoForks: CatalogRowRules {
        func problem(with record: UtensilRecord) -> String? { record.name == "Fork" ? "the name Fork" : nil }
        func problem(withUser user: String) -> String? { nil }
        func problem(with crash: CatalogDecoderCrash) -> String? { nil }
    }

    @Test func anOlderVersionsCatalogIsReadWholeAndWrittenWithThisSchema() throws {
        let folder = try temporaryFolder("catalog-file")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("utensils.sqlite").path
        let written = try MigrationTests.makeV2Catalog(at: path)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))

        let contents = try CatalogFile.inspect(path: path, rules: AnyRow())
        #expect(contents.needsMigration)
        #expect(contents.categoryCount == 0)
        #expect(contents.rows.utensils.map(\.id.uuidString) == written.map(\.id).sorted())
        for record in contents.rows.utensils {
            #expect(record.nameKey == UtensilName.uniquenessKey(for: record.name) && record.nameClaim == record.nameKey)
            #expect(record.category == nil && record.host == nil && record.trashedAt == nil)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "reading changed the file")

        let fresh = folder.appendingPathComponent("fresh.sqlite").path
        try SQLiteSnapshotWriter().writeSQLite(contents.rows, to: fresh)
        let catalog = try SQLiteCatalog(path: fresh)
        #expect(Set(try catalog.all().map(\.id)) == Set(contents.rows.utensils.map(\.id)))
        #expect(try catalog.list(search: "loffel", sort: .name, limit: 10, after: nil).utensils.map(\.name) == ["Löffel"])
    }

    @Test func aFileThatIsNotAsUtensildMakesItIsRefusedNamingWhat() throws {
        let folder = try temporaryFolder("catalog-file")
        defer { try? FileManager.default.removeItem(at: folder) }
        func catalog(_ name: String, _ sql: String) throws -> String {
            let path = folder.appendingPathComponent(name).path
            let queue = try DatabaseQueue(path: path)
            try SQLiteCatalog.migrator.migrate(queue)
            try queue.write { db in
                try db.execute(sql: """
                    INSERT INTO utensil(id, name, nameKey, searchKey, extension, createdAt, width, height, bytes, sha256, sortKey)
                    VALUES ('6F1C2D3E-4A5B-4C6D-8E9F-0A1B2C3D4E5F', 'Fork', 'fork', 'fork', 'jpg', '2026-11-20 10:15:02.123',
                            1, 1, 1, 'x', '');
                    """)
                try db.execute(sql: sql)
            }
            try queue.close()
            return path
        }
        #expect(throws: CatalogFileProblem.badRow("its utensil 6F1C2D3E-4A5B-4C6D-8E9F-0A1B2C3D4E5F has the name Fork")) {
            try CatalogFile.inspect(path: try catalog("rules.sqlite", "SELECT 1"), rules: NoForks())
        }
        #expect(throws: CatalogFileProblem.badRow(
            "its utensil 6F1C2D3E-4A5B-4C6D-8E9F-0A1B2C3D4E5F has a width that is not a whole number")) {
            try CatalogFile.inspect(path: try catalog("width.sqlite", "UPDATE utensil SET width = 'wide'"), rules: AnyRow())
        }
        #expect(throws: CatalogFileProblem.badRow(
            "its utensil row 1 has the id \"6f1c2d3e-4a5b-4c6d-8e9f-0a1b2c3d4e5f\", which is not a UUID as utensild writes one")) {
            try CatalogFile.inspect(path: try catalog("lower.sqlite", "UPDATE utensil SET id = lower(id)"), rules: AnyRow())
        }
        #expect(throws: CatalogFileProblem.unexpectedSchema("it has a table named \"extra\" that utensild's schema does not have")) {
            try CatalogFile.inspect(path: try catalog("table.sqlite", "CREATE TABLE extra(x)"), rules: AnyRow())
        }
        #expect(throws: CatalogFileProblem.newer(migration: "v99-future")) {
            try CatalogFile.inspect(
                path: try catalog("newer.sqlite", "INSERT INTO grdb_migrations VALUES ('v99-future')"), rules: AnyRow())
        }
        #expect(throws: CatalogFileProblem.notACatalog) {
            try CatalogFile.inspect(path: try catalog("gap.sqlite", "DELETE FROM grdb_migrations WHERE identifier = 'v5-listing-indexes'"), rules: AnyRow())
        }
    }
}
