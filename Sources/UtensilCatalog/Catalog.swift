import Foundation
import GRDB

/// The catalog of utensils: the only owner of the SQLite database.
///
/// Opening it runs the migrations, so nothing ever sees an unmigrated database. The database
/// is in WAL mode with `synchronous=FULL`: once a write returns, it survives a power cut.
public final class Catalog: Sendable {
    private let writer: DatabasePool

    /// Opens (creating if needed) the catalog at `path`.
    /// - Parameter busyTimeout: how long a write waits for another process's lock.
    public init(path: String, busyTimeout: TimeInterval = 5) throws(CatalogError) {
        var configuration = GRDB.Configuration()
        configuration.busyMode = .timeout(busyTimeout)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        do {
            writer = try DatabasePool(path: path, configuration: configuration)
            try Self.migrator.migrate(writer)
        } catch {
            throw CatalogError.from(error)
        }
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-utensil") { db in
            try db.create(table: "utensil") { t in
                t.column("id", .text).primaryKey()
                t.column("name", .text).notNull()
                t.column("nameKey", .text).notNull().indexed()
                t.column("searchKey", .text).notNull()
                t.column("extension", .text).notNull()
                t.column("createdAt", .datetime).notNull().indexed()
                t.column("width", .integer).notNull()
                t.column("height", .integer).notNull()
                t.column("bytes", .integer).notNull()
                t.column("sha256", .text).notNull().indexed()
                t.column("sourceKey", .text).unique()
                t.column("nameClaim", .text).unique()
                t.column("contentClaim", .text).unique()
            }
        }
        migrator.registerMigration("v1-decoder-crash") { db in
            try db.create(table: "decoderCrash") { t in
                t.column("sourceKey", .text).primaryKey()
                t.column("crashes", .integer).notNull()
            }
        }
        return migrator
    }

    // MARK: Writes

    /// Commits a new utensil. Duplicate names and contents are refused by SQLite itself
    /// through the record's claim columns.
    public func insert(_ record: UtensilRecord) throws(CatalogError) {
        do {
            try writer.write { db in try record.insert(db) }
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
            let message = error.message ?? ""
            if message.contains("nameClaim") {
                let existing = try? utensil(nameKey: record.nameKey)?.name
                throw .duplicateName(existing: existing ?? record.name)
            }
            if message.contains("contentClaim") {
                let existing = try? utensil(sha256: record.sha256)?.name
                throw .duplicateContent(existing: existing ?? record.name)
            }
            if message.contains("sourceKey") { throw .alreadyIngested }
            throw CatalogError.from(error)
        } catch {
            throw CatalogError.from(error)
        }
    }

    /// Counts one more decoder crash on the drop with this source key; returns the new count.
    @discardableResult
    public func recordDecoderCrash(sourceKey: String) throws(CatalogError) -> Int {
        try write { db in
            try db.execute(
                sql: """
                    INSERT INTO decoderCrash(sourceKey, crashes) VALUES (?, 1)
                    ON CONFLICT(sourceKey) DO UPDATE SET crashes = crashes + 1
                    """,
                arguments: [sourceKey])
            return try Int.fetchOne(
                db, sql: "SELECT crashes FROM decoderCrash WHERE sourceKey = ?", arguments: [sourceKey]) ?? 0
        }
    }

    /// Forgets the crashes recorded for a drop (once it is a utensil or a rejection).
    public func clearDecoderCrashes(sourceKey: String) throws(CatalogError) {
        try write { db in
            try db.execute(sql: "DELETE FROM decoderCrash WHERE sourceKey = ?", arguments: [sourceKey])
        }
    }

    // MARK: Reads

    public func decoderCrashes(sourceKey: String) throws(CatalogError) -> Int {
        try read { db in
            try Int.fetchOne(
                db, sql: "SELECT crashes FROM decoderCrash WHERE sourceKey = ?", arguments: [sourceKey]) ?? 0
        }
    }

    public func utensil(id: UUID) throws(CatalogError) -> UtensilRecord? {
        try read { db in try UtensilRecord.fetchOne(db, key: id) }
    }

    public func utensil(sourceKey: String) throws(CatalogError) -> UtensilRecord? {
        try read { db in
            try UtensilRecord.filter(UtensilRecord.Columns.sourceKey == sourceKey).fetchOne(db)
        }
    }

    public func utensil(nameKey: String) throws(CatalogError) -> UtensilRecord? {
        try read { db in
            try UtensilRecord.filter(UtensilRecord.Columns.nameKey == nameKey).fetchOne(db)
        }
    }

    public func utensil(sha256: String) throws(CatalogError) -> UtensilRecord? {
        try read { db in
            try UtensilRecord.filter(UtensilRecord.Columns.sha256 == sha256).fetchOne(db)
        }
    }

    public func count() throws(CatalogError) -> Int {
        try read { db in try UtensilRecord.fetchCount(db) }
    }

    /// Every utensil id, for reconciling the files on disk with the rows.
    public func allIDs() throws(CatalogError) -> Set<UUID> {
        try read { db in
            let strings = try String.fetchAll(db, sql: "SELECT id FROM utensil")
            return Set(strings.compactMap(UUID.init(uuidString:)))
        }
    }

    /// Every utensil, newest first.
    public func all() throws(CatalogError) -> [UtensilRecord] {
        try read { db in
            try UtensilRecord.order(UtensilRecord.Columns.createdAt.desc).fetchAll(db)
        }
    }

    /// `PRAGMA integrity_check`: `["ok"]` when the database is sound.
    public func integrityCheck() throws(CatalogError) -> [String] {
        try read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
    }

    /// The value of a PRAGMA on a reading connection (for tests and `check`).
    func pragma(_ name: String) throws(CatalogError) -> String? {
        try read { db in try String.fetchOne(db, sql: "PRAGMA \(name)") }
    }

    // MARK: Plumbing

    private func read<T>(_ body: (Database) throws -> T) throws(CatalogError) -> T {
        do { return try writer.read(body) } catch { throw CatalogError.from(error) }
    }

    private func write<T>(_ body: (Database) throws -> T) throws(CatalogError) -> T {
        do { return try writer.write(body) } catch { throw CatalogError.from(error) }
    }
}
