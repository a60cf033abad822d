import Foundation
import GRDB
import UtensilCatalogModel
import UtensilCore

/// The catalog of utensils: the only owner of the SQLite database.
///
/// Opening it runs the migrations, so nothing ever sees an unmigrated database. The database
/// is in WAL mode with `synchronous=FULL`: once a write returns, it survives a power cut.
public final class SQLiteCatalog: Sendable {
    let writer: DatabasePool
    /// How a search finds its pages.
    let searchPlan: SearchPlan

    /// Opens (creating if needed) the catalog at `path`.
    /// - Parameters:
    ///   - busyTimeout: how long a write waits for another process's lock.
    ///   - searchPlan: when a search gathers its matches and when it walks the sort order.
    public init(path: String, busyTimeout: TimeInterval = 5, searchPlan: SearchPlan = .standard) throws(CatalogError) {
        self.searchPlan = searchPlan
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
        migrator.registerMigration("v3-category-owner-trash-sort") { db in
            // Categories from inbox folders, who added a utensil, when it last changed, the
            // trash, and the key `list --sort name` orders by. Rows written before it have no
            // category, no known owner and were never changed or trashed.
            try db.alter(table: "utensil") { t in
                t.add(column: "category", .text)
                t.add(column: "categoryKey", .text)
                t.add(column: "addedBy", .text)
                t.add(column: "updatedAt", .datetime)
                t.add(column: "trashedAt", .datetime)
                t.add(column: "sortKey", .text).notNull().defaults(to: "")
            }
            let names = try Row.fetchAll(db, sql: "SELECT id, name FROM utensil")
            let update = try db.makeStatement(sql: "UPDATE utensil SET sortKey = ? WHERE id = ?")
            for row in names {
                let name: String = row["name"]
                try update.execute(arguments: [UtensilName.sortKey(for: name), row["id"] as String])
            }
            try db.create(index: "utensil_on_sortKey", on: "utensil", columns: ["sortKey"])
            try db.create(index: "utensil_on_categoryKey", on: "utensil", columns: ["categoryKey", "trashedAt", "category"])
            try db.create(index: "utensil_on_trashedAt", on: "utensil", columns: ["trashedAt"])
        }
        migrator.registerMigration("v4-million-utensils") { db in
            // Fast at a million utensils. An index on trashedAt made SQLite gather every row
            // not in the trash and sort them for each page: only the trash is indexed now, and
            // a category's pages walk (categoryKey, sort column) indexes. `categories` and
            // `count` read counts kept by triggers in the same transactions as the rows. A
            // category shows as the utensil that opened it spells it.
            try db.execute(sql: """
                DROP INDEX utensil_on_trashedAt;
                DROP INDEX utensil_on_categoryKey;
                CREATE INDEX utensil_in_trash ON utensil(trashedAt) WHERE trashedAt IS NOT NULL;
                CREATE INDEX utensil_on_categoryKey_createdAt ON utensil(categoryKey, createdAt);
                CREATE INDEX utensil_on_categoryKey_sortKey ON utensil(categoryKey, sortKey);
                CREATE TABLE utensilCount(utensils INTEGER NOT NULL);
                INSERT INTO utensilCount SELECT count(*) FROM utensil WHERE trashedAt IS NULL;
                CREATE TRIGGER utensilCountInsert AFTER INSERT ON utensil WHEN new.trashedAt IS NULL BEGIN
                    UPDATE utensilCount SET utensils = utensils + 1;
                END;
                CREATE TRIGGER utensilCountDelete AFTER DELETE ON utensil WHEN old.trashedAt IS NULL BEGIN
                    UPDATE utensilCount SET utensils = utensils - 1;
                END;
                CREATE TRIGGER utensilCountUpdate AFTER UPDATE OF trashedAt ON utensil
                WHEN (old.trashedAt IS NULL) != (new.trashedAt IS NULL) BEGIN
                    UPDATE utensilCount SET utensils = utensils + (CASE WHEN new.trashedAt IS NULL THEN 1 ELSE -1 END);
                END;
                CREATE TABLE categoryCount(
                    categoryKey TEXT PRIMARY KEY, category TEXT NOT NULL, utensils INTEGER NOT NULL
                ) WITHOUT ROWID;
                INSERT INTO categoryCount(categoryKey, category, utensils)
                    SELECT categoryKey, category, count(*) FROM utensil
                    WHERE categoryKey IS NOT NULL AND trashedAt IS NULL GROUP BY categoryKey;
                CREATE TRIGGER categoryCountInsert AFTER INSERT ON utensil
                WHEN new.categoryKey IS NOT NULL AND new.trashedAt IS NULL BEGIN
                    INSERT INTO categoryCount(categoryKey, category, utensils) VALUES (new.categoryKey, new.category, 1)
                        ON CONFLICT(categoryKey) DO UPDATE SET utensils = utensils + 1;
                END;
                CREATE TRIGGER categoryCountDelete AFTER DELETE ON utensil
                WHEN old.categoryKey IS NOT NULL AND old.trashedAt IS NULL BEGIN
                    UPDATE categoryCount SET utensils = utensils - 1 WHERE categoryKey = old.categoryKey;
                    DELETE FROM categoryCount WHERE categoryKey = old.categoryKey AND utensils <= 0;
                END;
                CREATE TRIGGER categoryCountUpdate AFTER UPDATE OF categoryKey, trashedAt ON utensil BEGIN
                    UPDATE categoryCount SET utensils = utensils - 1
                        WHERE old.categoryKey IS NOT NULL AND old.trashedAt IS NULL AND categoryKey = old.categoryKey;
                    DELETE FROM categoryCount WHERE categoryKey = old.categoryKey AND utensils <= 0;
                    INSERT INTO categoryCount(categoryKey, category, utensils)
                        SELECT new.categoryKey, new.category, 1 WHERE new.categoryKey IS NOT NULL AND new.trashedAt IS NULL
                        ON CONFLICT(categoryKey) DO UPDATE SET utensils = utensils + 1;
                END;
                """)
        }
        migrator.registerMigration("v5-listing-indexes") { db in
            // The listing orders as covering indexes of the utensils not in the trash: a dense
            // search walks them testing each name without reading its row (see SearchPlan).
            // They replace the plain sortKey index; createdAt's stays for the other queries.
            try db.execute(sql: """
                DROP INDEX IF EXISTS utensil_on_sortKey;
                CREATE INDEX utensil_listing_by_name ON utensil(sortKey, id, searchKey) WHERE trashedAt IS NULL;
                CREATE INDEX utensil_listing_by_date ON utensil(createdAt, id, searchKey) WHERE trashedAt IS NULL;
                """)
        }
        migrator.registerMigration("v6-favorites") { db in
            // A user's favorites. A user is a name (the Unix user of utensilctl, the
            // web user of the gallery: the same name is the same person). A favorite stays
            // while its utensil is in the trash and goes with its row (ON DELETE CASCADE).
            try db.execute(sql: """
                CREATE TABLE favorite(
                    userName TEXT NOT NULL,
                    utensilId TEXT NOT NULL REFERENCES utensil(id) ON DELETE CASCADE,
                    PRIMARY KEY (userName, utensilId)
                ) WITHOUT ROWID;
                CREATE INDEX favorite_on_utensilId ON favorite(utensilId);
                """)
        }
        migrator.registerMigration("v7-hosts", migrate: Self.createHosts)
        migrator.registerMigration("v8-utensil-host") { db in
            // The host that ingested each utensil (PostgreSQL's column `host`).
            try db.execute(sql: "ALTER TABLE utensil ADD COLUMN host TEXT")
        }
        migrator.registerMigration("v9-duties", migrate: Self.createDuties)
        migrator.registerMigration("v10-events", migrate: Self.createEvents)
        migrator.registerMigration("v11-hosts-schema", migrate: Self.addHostsSchema)
        migrator.registerMigration("v12-fingerprints", migrate: Self.addFingerprints)
        migrator.registerMigration("v13-near-duplicates", migrate: Self.addNearDuplicates)
        return migrator
    }

    // MARK: Writes

    /// Commits a new utensil. Duplicate names and contents are refused by SQLite itself
    /// through the record's claim columns.
    public func insert(_ record: UtensilRecord) throws(CatalogError) {
        try write { db in
            do {
                try record.insert(db)
            } catch let error as DatabaseError where error.isUniqueViolation {
                throw try CatalogError.refusal(of: record, error, db)
            }
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
        try write { db in
            var refused: [CatalogError?] = []
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
                } catch let error as DatabaseError where error.isUniqueViolation {
                    refused.append(try CatalogError.refusal(of: record, error, db))
                }
            }
            return refused
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

    /// The utensil (not in the trash) with this name key.
    public func utensil(nameKey: String) throws(CatalogError) -> UtensilRecord? {
        try read { db in
            try UtensilRecord.filter(UtensilRecord.Columns.nameKey == nameKey && UtensilRecord.Columns.trashedAt == nil)
                .fetchOne(db)
        }
    }

    public func utensil(sha256: String) throws(CatalogError) -> UtensilRecord? {
        try read { db in
            try UtensilRecord.filter(UtensilRecord.Columns.sha256 == sha256).fetchOne(db)
        }
    }

    /// Utensils in the catalog, not counting the trash (counted as rows change, not when asked).
    public func count() throws(CatalogError) -> Int {
        try read { db in try Int.fetchOne(db, sql: "SELECT utensils FROM utensilCount") ?? 0 }
    }

    /// Every utensil id (the trash too: its files are kept), for reconciling the files on disk
    /// with the rows.
    public func allIDs() throws(CatalogError) -> Set<UUID> {
        try read { db in
            // Streamed into the set: a million ids never sit in memory twice, as text and as UUIDs.
            var ids = Set<UUID>(minimumCapacity: try UtensilRecord.fetchCount(db))
            let cursor = try String.fetchCursor(db, sql: "SELECT id FROM utensil")
            while let text = try cursor.next() {
                if let id = UUID(uuidString: text) { ids.insert(id) }
            }
            return ids
        }
    }

    /// Every utensil, the trash too, newest first.
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

    /// Updates a row; a claim another row holds is refused as the matching ``CatalogError``.
    static func update(_ record: UtensilRecord, _ db: Database) throws {
        do {
            try record.update(db)
        } catch let error as DatabaseError where error.isUniqueViolation {
            throw try CatalogError.refusal(of: record, error, db)
        }
    }

    func read<T>(_ body: (Database) throws -> T) throws(CatalogError) -> T {
        do { return try writer.read(body) } catch { throw CatalogError.from(error) }
    }

    func write<T>(_ body: (Database) throws -> T) throws(CatalogError) -> T {
        do { return try writer.write(body) } catch { throw CatalogError.from(error) }
    }
}

// MARK: - Listing, renaming, deleting

extension SQLiteCatalog {
    /// Utensils matching `search` (case- and accent-insensitive, anywhere in the name), in
    /// `sort` order, at most `limit`, after `cursor` (keyset pagination: stable while rows
    /// are added or removed).
    ///
    /// - Parameters:
    ///   - category: only utensils of this category (compared NFC and case-insensitively).
    ///   - addedBy: only utensils added by this user (exactly as ``UtensilRecord/addedBy``).
    ///   - favoriteOf: only the favorites of this user name.
    public func list(
        search: String?, category: String? = nil, addedBy: String? = nil, favoriteOf: String? = nil, sort: ListSort,
        limit: Int, after cursor: String?
    ) throws(CatalogError) -> CatalogPage {
        let limit = max(1, min(limit, 10_000))
        let column = sort == .name ? "sortKey" : "createdAt"
        let descending = sort == .newestFirst
        var cursorCondition: (sql: String, value: String, id: String)?
        if let cursor {
            guard let (value, id) = Self.decodeCursor(cursor) else { throw CatalogError.invalidCursor }
            cursorCondition = ("(\(column), id) \(descending ? "<" : ">") (?, ?)", value, id)
        }
        // Names hold no control character, so a search with one matches nothing (and a NUL
        // would end the full-text query early: SQLite answers "unterminated string").
        if let search, search.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return CatalogPage(utensils: [], next: nil)
        }
        // Three characters make a trigram: shorter searches test each name with LIKE instead.
        let trigramSearch = search.flatMap { $0.unicodeScalars.count >= 3 ? $0 : nil }
        let rows = try read { db in
            var conditions: [String] = ["trashedAt IS NULL"]
            var arguments: [(any DatabaseValueConvertible)?] = []
            if let category {
                conditions.append("categoryKey = ?")
                arguments.append(UtensilName.uniquenessKey(for: category))
            }
            if let addedBy {
                conditions.append("addedBy = ?")
                arguments.append(addedBy)
            }
            if let favoriteOf {
                conditions.append("id IN (SELECT utensilId FROM favorite WHERE userName = ?)")
                arguments.append(favoriteOf)
            }
            if let search, !search.isEmpty, trigramSearch == nil {
                // The sort order is walked, testing each name.
                conditions.append("searchKey LIKE ? ESCAPE '\\'")
                arguments.append(LikePattern.containing(search))
            }
            if let cursorCondition {
                conditions.append(cursorCondition.sql)
                arguments.append(cursorCondition.value)
                arguments.append(cursorCondition.id)
            }
            let direction = descending ? "DESC" : "ASC"
            let order = "ORDER BY \(column) \(direction), id \(direction)"
            let filter = conditions.joined(separator: " AND ")
            guard let search = trigramSearch else {
                let sql = "SELECT *, \(column) AS cursorValue FROM utensil WHERE \(filter) \(order) LIMIT \(limit + 1)"
                return try Row.fetchAll(db, sql: sql, arguments: StatementArguments(arguments))
            }
            // Trigram index: the whole text as one phrase matches it anywhere in the name.
            let phrase = "\"" + search.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            let matches = try Self.matchCount(phrase, upTo: searchPlan.gatherBelow, db)
            if matches == 0 { return [] }
            if matches >= searchPlan.gatherBelow {
                // The rows the walk selects come from the covering listing index; only the
                // page's own rows are read from the table.
                let walk = """
                    SELECT *, \(column) AS cursorValue FROM utensil WHERE rowid IN (
                        SELECT rowid FROM (
                            SELECT rowid, searchKey FROM utensil WHERE \(filter) \(order) LIMIT \(searchPlan.walkAtMost)
                        ) WHERE instr(searchKey, ?) > 0 LIMIT \(limit + 1)
                    ) \(order)
                    """
                let rows = try Row.fetchAll(db, sql: walk, arguments: StatementArguments(arguments + [search]))
                if rows.count > limit { return rows }
            }
            // Each match's row is looked up once for its sort value; only the page's rows are
            // read whole. CROSS JOIN keeps the search first.
            let gather = """
                SELECT *, \(column) AS cursorValue FROM utensil WHERE rowid IN (
                    SELECT utensil.rowid FROM utensilSearch CROSS JOIN utensil ON utensil.rowid = utensilSearch.rowid
                    WHERE utensilSearch MATCH ? AND \(filter) \(order) LIMIT \(limit + 1)
                ) \(order)
                """
            return try Row.fetchAll(db, sql: gather, arguments: StatementArguments([phrase] + arguments))
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

    /// Utensils (not in the trash) whose name is `name` (compared NFC and case-insensitively),
    /// newest first.
    public func utensils(nameKey: String) throws(CatalogError) -> [UtensilRecord] {
        try read { db in
            try UtensilRecord.filter(UtensilRecord.Columns.nameKey == nameKey && UtensilRecord.Columns.trashedAt == nil)
                .order(UtensilRecord.Columns.createdAt.desc).fetchAll(db)
        }
    }

    /// Renames a utensil (not one in the trash, whose name must stay unclaimed); the new name is
    /// claimed when duplicate names are refused.
    public func rename(id: UUID, name: String, nameKey: String, searchKey: String, claim: Bool) throws(CatalogError) -> UtensilRecord {
        try write { db in
            guard var record = try UtensilRecord.fetchOne(db, key: id), record.trashedAt == nil else {
                throw CatalogError.notFound
            }
            record.name = name
            record.nameKey = nameKey
            record.searchKey = searchKey
            record.nameClaim = claim ? nameKey : nil
            record.updatedAt = Date()
            try Self.update(record, db)
            return record
        }
    }

    /// Sets or (with nil) clears a utensil's category; returns the changed utensil.
    public func setCategory(id: UUID, to category: UtensilName?) throws(CatalogError) -> UtensilRecord {
        try write { db in
            guard var record = try UtensilRecord.fetchOne(db, key: id), record.trashedAt == nil else {
                throw CatalogError.notFound
            }
            record.category = category?.value
            record.updatedAt = Date()
            try record.update(db)
            return record
        }
    }

    /// Every category of the utensils not in the trash, with how many it has, in name order.
    /// Spellings that differ only in case are one category, shown as one of its utensils spells
    /// it. (Counted as rows change, not when asked: see the migration `v4-category-counts`.)
    public func categories() throws(CatalogError) -> [CatalogCategory] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT category, utensils FROM categoryCount ORDER BY categoryKey")
                .map { CatalogCategory(name: $0["category"], count: $0["utensils"]) }
        }
    }

    /// Deletes a row; returns it. The caller removes the files once this has committed (a crash
    /// in between leaves files without a row, which start-up reconciliation removes).
    public func delete(id: UUID) throws(CatalogError) -> UtensilRecord {
        try write { db in
            guard let record = try UtensilRecord.fetchOne(db, key: id) else { throw CatalogError.notFound }
            try record.delete(db)
            return record
        }
    }

    /// Replaces the photo of a utensil (not one in the trash): the photo's fields of `photo`
    /// (extension, size, dimensions, hash, source, content claim, `addedBy`) go into the row
    /// `photo.id`, whose name, category and `createdAt` stay; `updatedAt` is set. The decoder-
    /// crash count of the new source is forgotten in the same transaction. The caller moves the
    /// new files into place once this has committed.
    ///
    /// - Throws: ``CatalogError/notFound`` when the utensil was deleted or trashed meanwhile,
    ///   ``CatalogError/duplicateContent(existing:)`` when another utensil claims the photo.
    public func replacePhoto(with photo: UtensilRecord) throws(CatalogError) -> UtensilRecord {
        try write { db in
            guard var record = try UtensilRecord.fetchOne(db, key: photo.id), record.trashedAt == nil else {
                throw CatalogError.notFound
            }
            record.fileExtension = photo.fileExtension
            record.width = photo.width
            record.height = photo.height
            record.bytes = photo.bytes
            record.sha256 = photo.sha256
            record.sourceKey = photo.sourceKey
            record.contentClaim = photo.contentClaim
            record.addedBy = photo.addedBy
            record.host = photo.host
            record.fingerprint = photo.fingerprint
            record.nearDuplicate = photo.nearDuplicate
            record.updatedAt = Date()
            try Self.update(record, db)
            if let sourceKey = photo.sourceKey {
                try db.execute(
                    sql: "DELETE FROM decoderCrash WHERE sourceKey = ?",
                    arguments: [String(UtensilRecord.fileIdentity(ofSourceKey: sourceKey))])
            }
            return record
        }
    }

    // MARK: The trash

    /// Moves a utensil to the trash: it leaves listings, searches and categories, and gives up
    /// its name claim so that a new drop may take the name. It keeps its content claim: the
    /// same photo dropped again is still a duplicate (of a utensil that can be restored).
    public func trash(id: UUID, at date: Date = Date()) throws(CatalogError) -> UtensilRecord {
        try write { db in
            guard var record = try UtensilRecord.fetchOne(db, key: id), record.trashedAt == nil else {
                throw CatalogError.notFound
            }
            record.trashedAt = date
            record.nameClaim = nil
            try record.update(db)
            return record
        }
    }

    /// Brings a utensil back from the trash, optionally under a new name (which sets
    /// `updatedAt`). With `claimName` its name is claimed again, so a name taken meanwhile
    /// is refused as ``CatalogError/duplicateName(existing:)``.
    public func restore(id: UUID, as newName: UtensilName?, claimName: Bool) throws(CatalogError) -> UtensilRecord {
        try write { db in
            guard var record = try UtensilRecord.fetchOne(db, key: id), record.trashedAt != nil else {
                throw CatalogError.notFound
            }
            if let newName {
                record.name = newName.value
                record.nameKey = newName.uniquenessKey
                record.searchKey = newName.searchKey
                record.updatedAt = Date()
            }
            record.trashedAt = nil
            record.nameClaim = claimName ? record.nameKey : nil
            try Self.update(record, db)
            return record
        }
    }

    /// The utensils in the trash, longest there first; with `before`, only those trashed
    /// before that moment (the ones due for purging).
    public func trashed(before: Date? = nil) throws(CatalogError) -> [UtensilRecord] {
        try read { db in
            var request = UtensilRecord.filter(UtensilRecord.Columns.trashedAt != nil)
            if let before { request = request.filter(UtensilRecord.Columns.trashedAt < CatalogDate.value(before)) }
            return try request.order(UtensilRecord.Columns.trashedAt, UtensilRecord.Columns.id).fetchAll(db)
        }
    }

    /// How many names the trigram `phrase` matches, counting no further than `limit`.
    static func matchCount(_ phrase: String, upTo limit: Int, _ db: Database) throws -> Int {
        try Int.fetchOne(
            db,
            sql: "SELECT count(*) FROM (SELECT 1 FROM utensilSearch WHERE utensilSearch MATCH ? LIMIT ?)",
            arguments: [phrase, limit]) ?? 0
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
        // Only a cursor this catalog handed out: its id is a utensil id, and it encodes back to itself.
        guard parts.count == 2, UUID(uuidString: String(parts[1])) != nil,
              encodeCursor(value: String(parts[0]), id: String(parts[1])) == cursor
        else { return nil }
        return (String(parts[0]), String(parts[1]))
    }
}

extension SQLiteCatalog {
    /// Up to `limit` utensil ids (the trash too) in id order, after `id`: a walk over the whole
    /// catalog in pages that never holds more than one page.
    public func ids(after id: UUID?, limit: Int) throws(CatalogError) -> [UUID] {
        try read { db in
            try String.fetchAll(
                db, sql: "SELECT id FROM utensil WHERE id > ? ORDER BY id LIMIT ?",
                arguments: [id?.uuidString ?? "", limit]
            ).compactMap(UUID.init(uuidString:))
        }
    }
}

extension SQLiteCatalog {
    /// Utensils in the catalog, the trash too.
    public func countAll() throws(CatalogError) -> Int {
        try read { db in try UtensilRecord.fetchCount(db) }
    }
}
