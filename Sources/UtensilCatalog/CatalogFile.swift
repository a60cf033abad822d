import Foundation
import GRDB
import UtensilCatalogModel

/// A catalog's SQLite file looked at without changing it: a backup's `utensils.sqlite` before
/// `utensild restore` installs it.
public enum CatalogFile {
    /// What a sound catalog file holds.
    public struct Contents: Sendable {
        /// Every utensil, the trash too, in id order.
        public var utensils: [SnapshotUtensil]
        public var categoryCount: Int
        /// True when migrations of this utensild are still to run on it (an older version's file).
        public var needsMigration: Bool
    }

    /// Opens the file read-only, checks it (`PRAGMA integrity_check`, and that every migration
    /// it went through is one this utensild knows), and reads what it holds.
    public static func inspect(path: String) throws(CatalogFileProblem) -> Contents {
        var configuration = GRDB.Configuration()
        configuration.readonly = true
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw .unreadable(String(describing: error))
        }
        defer { try? queue.close() }
        do {
            return try queue.read { db throws -> Contents in
                let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check")
                guard integrity == ["ok"] else { throw CatalogFileProblem.damaged(integrity.prefix(3).joined(separator: "; ")) }
                let known = Set(Catalog.migrator.migrations)
                let applied = try db.tableExists("grdb_migrations")
                    ? Set(try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")) : []
                guard applied.contains("v1-utensil") else { throw CatalogFileProblem.notACatalog }
                if let unknown = applied.subtracting(known).sorted().first { throw CatalogFileProblem.newer(migration: unknown) }
                let snapshot = SQLiteCatalogSnapshot.self
                return Contents(
                    utensils: try snapshot.utensils(in: db),
                    categoryCount: applied.contains("v4-million-utensils") ? try snapshot.categoryCount(in: db) : 0,
                    needsMigration: !known.isSubset(of: applied))
            }
        } catch let problem as CatalogFileProblem {
            throw problem
        } catch {
            throw .unreadable(String(describing: error))
        }
    }
}

/// Why a catalog file cannot be installed.
public enum CatalogFileProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// SQLite cannot open or read it (not a database, truncated, …).
    case unreadable(String)
    /// `PRAGMA integrity_check` found damage.
    case damaged(String)
    /// A SQLite database, but not a utensild catalog.
    case notACatalog
    /// Written by a newer utensild (a migration this one does not know).
    case newer(migration: String)

    public var description: String {
        switch self {
        case .unreadable(let detail): "SQLite cannot read it (\(detail))"
        case .damaged(let detail): "SQLite's integrity check found it damaged (\(detail))"
        case .notACatalog: "it is a SQLite database but not a utensild catalog"
        case .newer(let migration): "a newer utensild wrote it (its schema has \(migration), which this version does not know); restore with that version or a later one"
        }
    }
}
