import Foundation
import GRDB

/// The catalog of utensils: the only owner of the SQLite database.
///
/// Opening it runs the migrations, so nothing ever sees an unmigrated database. The database
/// is in WAL mode with `synchronous=FULL`: once a write returns, it survives a power cut.
public final class Catalog: Sendable {
    let writer: DatabasePool

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
        migrator.registerMigration("v2-search-trigrams") { db in
            // A trigram index over the folded names: substring search without a table scan.
            try db.execute(sql: """
                CREATE VIRTUAL TABLE utensilSearch USING fts5(
                    searchKey, content='utensil', content_rowid='rowid', tokenize='trigram');
                CREATE TRIGGER utensilSearchInsert AFTER INSERT ON utensil BEGIN
                    INSERT INTO utensilSearch(rowid, searchKey) VALUES (new.rowid, new.searchKey);
                END;
                CREATE TRIGGER utensilSearchDelete AFTER DELETE ON utensil BEGIN
                    INSERT INTO utensilSearch(utensilSearch, rowid, searchKey) VALUES ('delete', old.rowid, old.searchKey);
                END;
                CREATE TRIGGER utensilSearchUpdate AFTER UPDATE OF searchKey ON utensil BEGIN
                    INSERT INTO utensilSearch(utensilSearch, rowid, searchKey) VALUES ('delete', old.rowid, old.searchKey);
                    INSERT INTO utensilSearch(rowid, searchKey) VALUES (new.rowid, new.searchKey);
                END;
                INSERT INTO utensilSearch(utensilSearch) VALUES ('rebuild');
                """)
        }
        migrator.registerMigration("v2-ignorable-keys", migrate: recomputeNameKeys)
        return migrator
    }

    // MARK: Writes

    /// Commits a new utensil. Duplicate names and contents are refused by SQLite itself
    /// through the record's claim columns.
    public func insert(_ record: UtensilRecord) throws(CatalogError) {
        do {
            try writer.write { db in try record.insert(db) }
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
            throw refusal(of: record, error)
        } catch {
            throw CatalogError.from(error)
        }
    }

    /// Commits several new utensils in one transaction: one WAL commit (one `fsync`) for all.
    /// Each record succeeds or fails on its own, inside a savepoint, so that a duplicate among
    /// them refuses only itself. The decoder-crash counts of the committed records' sources
    /// are forgotten in the same transaction.
    ///
    /// - Returns: for each record, in order, nil when it was committed or why it was refused.
    /// - Throws: when the transaction as a whole failed (busy, read-only, I/O): nothing committed.
    public func insert(batch records: [UtensilRecord]) throws(CatalogError) -> [CatalogError?] {
        var refused: [DatabaseError?] = []
        do {
            refused = try writer.write { db in
                var refused: [DatabaseError?] = []
                refused.reserveCapacity(records.count)
                for record in records {
                    do {
                        try db.inSavepoint {
                            try record.insert(db)
                            return .commit
                        }
                        if let sourceKey = record.sourceKey {
                            try db.execute(
                                sql: "DELETE FROM decoderCrash WHERE sourceKey = ?",
                                arguments: [String(UtensilRecord.fileIdentity(ofSourceKey: sourceKey))])
                        }
                        refused.append(nil)
                    } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
                        refused.append(error)
                    }
                }
                return refused
            }
        } catch {
            throw CatalogError.from(error)
        }
        return zip(records, refused).map { record, error in error.map { refusal(of: record, $0) } }
    }

    /// The catalog's reason for a UNIQUE violation while inserting `record`.
    private func refusal(of record: UtensilRecord, _ error: DatabaseError) -> CatalogError {
        let message = error.message ?? ""
        if message.contains("nameClaim") {
            let existing = try? utensil(nameKey: record.nameKey)?.name
            return .duplicateName(existing: existing ?? record.name)
        }
        if message.contains("contentClaim") {
            let existing = try? utensil(sha256: record.sha256)?.name
            return .duplicateContent(existing: existing ?? record.name)
        }
        if message.contains("sourceKey") { return .alreadyIngested }
        return CatalogError.from(error)
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

    // MARK: Observing

    /// Calls `onChange` after every committed transaction of this process that changed the
    /// utensil table, until the returned observation is cancelled or released.
    public func observeUtensilChanges(_ onChange: @escaping @Sendable () -> Void) -> CatalogObservation {
        let cancellable = DatabaseRegionObservation(tracking: Table(UtensilRecord.databaseTableName))
            .start(in: writer, onError: { _ in }, onChange: { _ in onChange() })
        return CatalogObservation(cancellable)
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

    /// A utensil that came from the file with this identity (device, inode, size, mtime)
    /// under any name: its source key is the identity alone, or the identity and `@…`.
    public func utensil(sameFileAs fileIdentity: String) throws(CatalogError) -> UtensilRecord? {
        try read { db in
            // "@" is followed by "A" in ASCII: the range is every key that begins "<identity>@".
            try UtensilRecord.filter(
                UtensilRecord.Columns.sourceKey == fileIdentity
                    || (UtensilRecord.Columns.sourceKey > fileIdentity + "@"
                        && UtensilRecord.Columns.sourceKey < fileIdentity + "A")
            ).fetchOne(db)
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

    func read<T>(_ body: (Database) throws -> T) throws(CatalogError) -> T {
        do { return try writer.read(body) } catch { throw CatalogError.from(error) }
    }

    func write<T>(_ body: (Database) throws -> T) throws(CatalogError) -> T {
        do { return try writer.write(body) } catch { throw CatalogError.from(error) }
    }
}

// MARK: - Listing, renaming, deleting

/// How `list` orders utensils.
public enum CatalogSort: String, Sendable, CaseIterable {
    case name
    case created
    case newestFirst = "-created"
}

/// One page of a listing and the cursor of the next one.
public struct CatalogPage: Sendable, Equatable {
    public var utensils: [UtensilRecord]
    /// Opaque; nil on the last page.
    public var next: String?
}

extension Catalog {
    /// Utensils matching `search` (case- and accent-insensitive, anywhere in the name), in
    /// `sort` order, at most `limit`, after `cursor` (keyset pagination: stable while rows
    /// are added or removed).
    public func list(search: String?, sort: CatalogSort, limit: Int, after cursor: String?) throws(CatalogError) -> CatalogPage {
        let limit = max(1, min(limit, 10_000))
        let column = sort == .name ? "nameKey" : "createdAt"
        let descending = sort == .newestFirst
        var cursorCondition: (sql: String, value: String, id: String)?
        if let cursor {
            guard let (value, id) = Self.decodeCursor(cursor) else { throw CatalogError.invalidCursor }
            cursorCondition = ("(\(column), id) \(descending ? "<" : ">") (?, ?)", value, id)
        }
        let rows = try read { db in
            var conditions: [String] = []
            var arguments: [(any DatabaseValueConvertible)?] = []
            if let search, !search.isEmpty {
                if search.unicodeScalars.count >= 3 {
                    // Trigram index: the whole text as one phrase matches it anywhere in the name.
                    let phrase = "\"" + search.replacingOccurrences(of: "\"", with: "\"\"") + "\""
                    if try Self.isDense(phrase, db) {
                        // So many names match that walking the sort order and testing each name
                        // fills a page after about limit / density rows, long before gathering
                        // and sorting every match would.
                        conditions.append("instr(searchKey, ?) > 0")
                        arguments.append(search)
                    } else {
                        conditions.append("rowid IN (SELECT rowid FROM utensilSearch WHERE utensilSearch MATCH ?)")
                        arguments.append(phrase)
                    }
                } else {
                    conditions.append("searchKey LIKE ? ESCAPE '\\'")
                    arguments.append("%" + Self.escapedForLike(search) + "%")
                }
            }
            if let cursorCondition {
                conditions.append(cursorCondition.sql)
                arguments.append(cursorCondition.value)
                arguments.append(cursorCondition.id)
            }
            let direction = descending ? "DESC" : "ASC"
            let sql = """
                SELECT *, \(column) AS cursorValue FROM utensil
                \(conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND "))
                ORDER BY \(column) \(direction), id \(direction) LIMIT \(limit + 1)
                """
            return try Row.fetchAll(db, sql: sql, arguments: StatementArguments(arguments))
        }
        var utensils: [UtensilRecord] = []
        for row in rows.prefix(limit) {
            do { utensils.append(try UtensilRecord(row: row)) } catch { throw CatalogError.from(error) }
        }
        var next: String?
        if rows.count > limit, let last = rows.prefix(limit).last {
            next = Self.encodeCursor(value: last["cursorValue"] as String? ?? "", id: last["id"] as String? ?? "")
        }
        return CatalogPage(utensils: utensils, next: next)
    }

    /// Utensils whose name is `name` (compared NFC and case-insensitively), newest first.
    public func utensils(nameKey: String) throws(CatalogError) -> [UtensilRecord] {
        try read { db in
            try UtensilRecord.filter(UtensilRecord.Columns.nameKey == nameKey)
                .order(UtensilRecord.Columns.createdAt.desc).fetchAll(db)
        }
    }

    /// Renames a utensil; the new name is claimed when duplicate names are refused.
    public func rename(id: UUID, name: String, nameKey: String, searchKey: String, claim: Bool) throws(CatalogError) -> UtensilRecord {
        do {
            return try writer.write { db in
                guard var record = try UtensilRecord.fetchOne(db, key: id) else { throw CatalogError.notFound }
                record.name = name
                record.nameKey = nameKey
                record.searchKey = searchKey
                record.nameClaim = claim ? nameKey : nil
                try record.update(db)
                return record
            }
        } catch let error as CatalogError {
            throw error
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
            let existing = try? utensil(nameKey: nameKey)?.name
            throw .duplicateName(existing: existing ?? name)
        } catch {
            throw CatalogError.from(error)
        }
    }

    /// Deletes a row; returns it. The caller removes the files once this has committed (a crash
    /// in between leaves files without a row, which start-up reconciliation removes).
    public func delete(id: UUID) throws(CatalogError) -> UtensilRecord {
        do {
            return try writer.write { db in
                guard let record = try UtensilRecord.fetchOne(db, key: id) else { throw CatalogError.notFound }
                try record.delete(db)
                return record
            }
        } catch let error as CatalogError {
            throw error
        } catch {
            throw CatalogError.from(error)
        }
    }

    /// Matches at or above which a search walks the sort order instead of sorting its matches.
    static let denseMatches = 2000

    /// Whether the trigram `phrase` matches at least ``denseMatches`` names (counting stops there).
    static func isDense(_ phrase: String, _ db: Database) throws -> Bool {
        let count = try Int.fetchOne(
            db,
            sql: "SELECT count(*) FROM (SELECT 1 FROM utensilSearch WHERE utensilSearch MATCH ? LIMIT ?)",
            arguments: [phrase, denseMatches]) ?? 0
        return count >= denseMatches
    }

    static func escapedForLike(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if character == "%" || character == "_" || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }

    static func encodeCursor(value: String, id: String) -> String {
        Data((value + "\u{0}" + id).utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decodeCursor(_ cursor: String) -> (String, String)? {
        var base64 = cursor.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64), let text = String(data: data, encoding: .utf8) else { return nil }
        let parts = text.split(separator: "\u{0}", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        return (String(parts[0]), String(parts[1]))
    }
}

/// A running ``Catalog/observeUtensilChanges(_:)``; stops when cancelled or released.
public final class CatalogObservation: Sendable {
    private let cancellable: AnyDatabaseCancellable

    init(_ cancellable: AnyDatabaseCancellable) { self.cancellable = cancellable }

    public func cancel() { cancellable.cancel() }
}
