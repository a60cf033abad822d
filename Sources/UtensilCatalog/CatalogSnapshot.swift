import Foundation
import GRDB

/// One utensil as a backup needs it: which files it has and what its original's bytes hash to.
public struct SnapshotUtensil: Sendable, Equatable {
    public var id: UUID
    /// The original's extension (`originals/<id>.<ext>`).
    public var fileExtension: String
    /// Lower-case hex SHA-256 of the original, as the catalog recorded it.
    public var sha256: String
    public var trashed: Bool

    public init(id: UUID, fileExtension: String, sha256: String, trashed: Bool) {
        self.id = id
        self.fileExtension = fileExtension
        self.sha256 = sha256
        self.trashed = trashed
    }
}

/// The catalog frozen at one instant, whatever its backend: the utensils it holds and, written
/// out, a SQLite file of it (the one portable form a backup takes). Taking a snapshot is
/// quick; reading and writing it out do not hold up writers of the live catalog.
public protocol CatalogSnapshot: Sendable {
    /// Every utensil of the snapshot, the trash too, in id order.
    func utensils() throws(CatalogError) -> [SnapshotUtensil]
    /// How many categories the utensils not in the trash have.
    func categoryCount() throws(CatalogError) -> Int
    /// Writes the snapshot as a new SQLite database at `path` (a file that does not exist), in
    /// rollback-journal mode so that the one file is all of it, made durable.
    func writeSQLite(to path: String) throws(CatalogError)
}

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

extension Catalog {
    /// A snapshot of the catalog as it is now (a WAL read transaction: writers go on).
    public func snapshot() throws(CatalogError) -> any CatalogSnapshot {
        do {
            return SQLiteCatalogSnapshot(try writer.makeSnapshot())
        } catch {
            throw CatalogError.from(error)
        }
    }
}
