import Foundation
import GRDB
import UtensilCatalogModel

/// Writes a catalog handed over as plain values (``CatalogContents``: another backend's
/// snapshot) as a new SQLite catalog file, with this backend's schema and migrations, in one
/// transaction, in rollback-journal mode (one self-contained file) with `synchronous=FULL`.
public struct SQLiteSnapshotWriter: CatalogSnapshotWriter {
    public init() {}

    /// Writes `contents` to `path`: a new file, or an empty one the caller made (a backup
    /// creates it first, private, so that SQLite's journal takes its mode). A file that holds
    /// anything is never written over.
    public func writeSQLite(_ contents: CatalogContents, to path: String) throws(CatalogError) {
        var existing = stat()
        if lstat(path, &existing) == 0, (existing.st_mode & S_IFMT) != S_IFREG || existing.st_size != 0 {
            throw CatalogError.unavailable(code: -1, detail: "\(path) exists already and is not empty; a snapshot is written to a new file")
        }
        do {
            var configuration = GRDB.Configuration()
            configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            try SQLiteCatalog.migrator.migrate(queue)
            try queue.write { db in try SQLiteCatalog.insert(contents, db) }
            try queue.close()
        } catch {
            throw CatalogError.from(error)
        }
    }
}
