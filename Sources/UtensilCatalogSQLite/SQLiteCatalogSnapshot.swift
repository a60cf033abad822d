import Foundation
import GRDB
import UtensilCatalogModel

/// A SQLite catalog's snapshot: a read transaction on a WAL snapshot, kept open until released.
final class SQLiteCatalogSnapshot: CatalogSnapshot {
    private let snapshot: DatabaseSnapshot

    init(_ snapshot: DatabaseSnapshot) {
        self.snapshot = snapshot
    }

    func utensils() throws(CatalogError) -> [SnapshotUtensil] {
        do {
            return try snapshot.read(Self.utensils(in:))
        } catch {
            throw CatalogError.from(error)
        }
    }

    func categoryCount() throws(CatalogError) -> Int {
        do {
            return try snapshot.read(Self.categoryCount(in:))
        } catch {
            throw CatalogError.from(error)
        }
    }

    static func utensils(in db: Database) throws -> [SnapshotUtensil] {
        try Row.fetchAll(db, sql: "SELECT id, extension, sha256, trashedAt IS NOT NULL AS trashed FROM utensil ORDER BY id")
            .compactMap { row in
                guard let id = UUID(uuidString: row["id"]) else { return nil }
                return SnapshotUtensil(id: id, fileExtension: row["extension"], sha256: row["sha256"], trashed: row["trashed"])
            }
    }

    static func categoryCount(in db: Database) throws -> Int {
        try Int.fetchOne(db, sql: "SELECT count(*) FROM categoryCount") ?? 0
    }

    func writeSQLite(to path: String) throws(CatalogError) {
        do {
            let destination = try DatabaseQueue(path: path)
            try snapshot.backup(to: destination)
            try destination.writeWithoutTransaction { db in
                // The copy keeps the source's WAL mark; a backup is one self-contained file.
                _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = DELETE")
            }
            try destination.close()
        } catch {
            throw CatalogError.from(error)
        }
    }
}

extension SQLiteCatalog {
    /// A snapshot of the catalog as it is now (a WAL read transaction: writers go on).
    public func snapshot() throws(CatalogError) -> any CatalogSnapshot {
        do {
            return SQLiteCatalogSnapshot(try writer.makeSnapshot())
        } catch {
            throw CatalogError.from(error)
        }
    }
}
