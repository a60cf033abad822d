import CSQLiteGuard
import Foundation
import GRDB
import UtensilCatalogModel
import UtensilCore

/// A catalog's SQLite file from outside (a backup's `utensils.sqlite`), read without trusting
/// it: `utensild restore` loads what this reads into a catalog it makes itself, never the file.
///
/// The file is opened read-only, in SQLite's defensive mode, its schema not trusted, with no
/// trigger fired and no view read (`query_only` too). Its schema must be exactly the one this
/// version's migrations make up to the last it went through (no other table, trigger, view or
/// index), and the tables read must have the columns utensild made. Only plain table rows are
/// read, by this file's own SELECTs, row by row: each id a UUID, each value of the type its
/// column holds, no two rows claiming the same thing, every favorite naming a utensil the
/// file holds, and every row meeting the caller's ``CatalogRowRules``.
public enum CatalogFile {
    /// What a sound catalog file holds.
    public struct Contents: Sendable {
        /// Every utensil, the trash too, in id order.
        public var utensils: [SnapshotUtensil]
        public var categoryCount: Int
        /// True when migrations of this utensild were still to run on it (an older version's file).
        public var needsMigration: Bool
        /// Every row, checked: what a restore loads (names' keys made again by this version's rules).
        public var rows: CatalogContents
    }

    /// Checks the file at `path` (`PRAGMA integrity_check`, its schema, every row under
    /// `rules`) and reads what it holds.
    public static func inspect(path: String, rules: some CatalogRowRules) throws(CatalogFileProblem) -> Contents {
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(path: path, configuration: untrusted)
        } catch {
            throw .unreadable(String(describing: error))
        }
        defer { try? queue.close() }
        do {
            return try queue.read { db throws -> Contents in
                let integrity = try String.fetchAll(db, sql: "PRAGMA integrity_check")
                guard integrity == ["ok"] else { throw CatalogFileProblem.damaged(integrity.prefix(3).joined(separator: "; ")) }
                let applied = try migrations(in: db)
                let expected = try Schema(upTo: applied.last!)
                try expected.check(db)
                var reader = RowReader(rules: rules, columns: expected.columns)
                let rows = try reader.read(db)
                let categories = Set(rows.utensils.lazy.filter { $0.trashedAt == nil }.compactMap(\.categoryKey))
                return Contents(
                    utensils: rows.utensils.map {
                        SnapshotUtensil(id: $0.id, fileExtension: $0.fileExtension, sha256: $0.sha256, trashed: $0.trashedAt != nil)
                    },
                    categoryCount: categories.count,
                    needsMigration: applied.count < SQLiteCatalog.migrator.migrations.count,
                    rows: rows)
            }
        } catch let problem as CatalogFileProblem {
            throw problem
        } catch {
            throw .unreadable(String(describing: error))
        }
    }

    /// Read-only, defensive, the schema not trusted, no triggers or views, queries only.
    private static var untrusted: GRDB.Configuration {
        var configuration = GRDB.Configuration()
        configuration.readonly = true
        configuration.foreignKeysEnabled = false
        configuration.prepareDatabase { db in
            let result = utensil_sqlite_harden(db.sqliteConnection.map(UnsafeMutableRawPointer.init))
            guard result == 0 else {
                throw DatabaseError(resultCode: ResultCode(rawValue: result), message: "SQLite's defensive settings could not be made")
            }
            try db.execute(sql: "PRAGMA trusted_schema = OFF")
            try db.execute(sql: "PRAGMA query_only = ON")
        }
        return configuration
    }

    /// The migrations the file went through, in this version's order: a prefix of this
    /// version's list.
    private static func migrations(in db: Database) throws -> [String] {
        let isTable = try Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM main.sqlite_master WHERE type = 'table' AND name = 'grdb_migrations')") ?? false
        guard isTable else { throw CatalogFileProblem.notACatalog }
        var applied: Set<String> = []
        for value in try DatabaseValue.fetchAll(db, sql: "SELECT identifier FROM main.grdb_migrations") {
            guard case .string(let identifier) = value.storage else { throw CatalogFileProblem.notACatalog }
            applied.insert(identifier)
        }
        let known = SQLiteCatalog.migrator.migrations
        if let unknown = applied.subtracting(known).sorted().first { throw CatalogFileProblem.newer(migration: VisibleText.escaped(unknown)) }
        let done = Array(known.prefix(applied.count))
        guard !done.isEmpty, Set(done) == applied else { throw CatalogFileProblem.notACatalog }
        return done
    }
}

/// The schema this version's migrations make up to one of them, made in memory: what a file
/// that went through the same migrations must have, object for object.
private struct Schema {
    struct Object: Hashable, Comparable {
        var type: String
        var name: String
        /// A trigger's or view's statement, white space collapsed (what it would run); nil for others.
        var sql: String? = nil

        static func < (left: Object, right: Object) -> Bool {
            (left.type, left.name, left.sql ?? "") < (right.type, right.name, right.sql ?? "")
        }
    }

    /// The columns of a table as `PRAGMA table_info` lists them: "name type notnull pk" each.
    typealias Columns = [String]

    /// Tables SQLite's ANALYZE may add; never read.
    static let statistics: Set<String> = ["sqlite_stat1", "sqlite_stat4"]
    /// The tables whose rows are read.
    static let read = ["utensil", "favorite", "decoderCrash", "notACopy"]

    let objects: Set<Object>
    /// Of the tables read that this schema has.
    let columns: [String: Columns]

    init(upTo migration: String) throws {
        let queue = try DatabaseQueue()
        try SQLiteCatalog.migrator.migrate(queue, upTo: migration)
        (objects, columns) = try queue.read { db in
            let objects = try Self.objects(in: db)
            var columns: [String: Columns] = [:]
            for table in Self.read where objects.contains(Object(type: "table", name: table)) {
                columns[table] = try Self.columns(of: table, in: db)
            }
            return (objects, columns)
        }
        try queue.close()
    }

    /// Refuses a file whose schema is not this one: another object, or a table read with other columns.
    func check(_ db: Database) throws {
        let found = try Self.objects(in: db).filter { !($0.type == "table" && Self.statistics.contains($0.name)) }
        if let extra = found.subtracting(objects).sorted().first {
            if objects.contains(where: { $0.type == extra.type && $0.name == extra.name }) {
                throw CatalogFileProblem.unexpectedSchema("its \(extra.type) \(Quoted(extra.name)) is not the one utensild's schema has")
            }
            throw CatalogFileProblem.unexpectedSchema(
                "it has a \(extra.type) named \(Quoted(extra.name)) that utensild's schema does not have")
        }
        if let missing = objects.subtracting(found).sorted().first {
            throw CatalogFileProblem.unexpectedSchema("it lacks the \(missing.type) \(Quoted(missing.name)) of utensild's schema")
        }
        for (table, expected) in columns where try Self.columns(of: table, in: db) != expected {
            throw CatalogFileProblem.unexpectedSchema("its table \(table) does not have the columns utensild makes it with")
        }
    }

    private static func objects(in db: Database) throws -> Set<Object> {
        var objects: Set<Object> = []
        for row in try Row.fetchAll(db, sql: "SELECT type, name, sql FROM main.sqlite_master") {
            guard case .string(let type) = (row[0] as DatabaseValue).storage, case .string(let name) = (row[1] as DatabaseValue).storage else {
                throw CatalogFileProblem.unexpectedSchema("its schema lists an object without a name")
            }
            var sql: String?
            if type == "trigger" || type == "view", case .string(let text) = (row[2] as DatabaseValue).storage {
                sql = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            }
            objects.insert(Object(type: type, name: name, sql: sql))
        }
        return objects
    }

    private static func columns(of table: String, in db: Database) throws -> Columns {
        try String.fetchAll(
            db, sql: "SELECT name || ' ' || type || ' ' || \"notnull\" || ' ' || pk FROM pragma_table_info(?, 'main') ORDER BY cid",
            arguments: [table])
    }
}

/// Reads the rows of a checked schema one by one, refusing the first that is not sound.
private struct RowReader {
    let rules: any CatalogRowRules
    let columns: [String: Schema.Columns]

    /// The columns of `utensil` read, as old as `v1-utensil` (a column a schema lacks reads as NULL).
    private static let utensilColumns = [
        "id", "name", "extension", "createdAt", "width", "height", "bytes", "sha256", "sourceKey", "nameClaim", "contentClaim",
        "category", "addedBy", "updatedAt", "trashedAt", "host", "fingerprint",
        "nearDuplicateOf", "nearDuplicateName", "nearDuplicateDistance",
    ]

    private var ids: Set<UUID> = []
    private var sourceKeys: [String: UUID] = [:]
    private var nameClaims: [String: UUID] = [:]
    private var contentClaims: [String: UUID] = [:]

    init(rules: any CatalogRowRules, columns: [String: Schema.Columns]) {
        self.rules = rules
        self.columns = columns
    }

    private func has(_ table: String, _ column: String) -> Bool {
        columns[table]?.contains { $0.hasPrefix(column + " ") } ?? false
    }

    mutating func read(_ db: Database) throws -> CatalogContents {
        var utensils: [UtensilRecord] = []
        let list = Self.utensilColumns.map { has("utensil", $0) ? "\"\($0)\"" : "NULL AS \"\($0)\"" }.joined(separator: ", ")
        let cursor = try Row.fetchCursor(db, sql: "SELECT \(list) FROM main.utensil ORDER BY id")
        var position = 0
        while let row = try cursor.next() {
            position += 1
            utensils.append(try utensil(row, position: position))
        }
        var favorites: [CatalogFavorite] = []
        if columns["favorite"] != nil {
            var marked: Set<[String]> = []
            let rows = try Row.fetchCursor(db, sql: "SELECT userName, utensilId FROM main.favorite ORDER BY userName, utensilId")
            position = 0
            while let row = try rows.next() {
                position += 1
                let shown = "its favorite row \(position)"
                guard case .string(let user) = (row[0] as DatabaseValue).storage else { throw Self.bad("\(shown) has a user name that is not text") }
                if let problem = rules.problem(withUser: user) { throw Self.bad("\(shown) is marked for \(problem)") }
                let id = try Self.id(row[1] as DatabaseValue, shown: "\(shown) (for \(Quoted(user)))", what: "names the utensil")
                guard ids.contains(id) else {
                    throw Self.bad("\(shown) (for \(Quoted(user))) names the utensil \(id.uuidString), which the catalog does not hold")
                }
                guard marked.insert([user, id.uuidString]).inserted else { throw Self.bad("\(shown) marks \(id.uuidString) for \(Quoted(user)) a second time") }
                favorites.append(CatalogFavorite(user: user, utensilID: id))
            }
        }
        var crashes: [CatalogDecoderCrash] = []
        if columns["decoderCrash"] != nil {
            var keys: Set<String> = []
            let rows = try Row.fetchCursor(db, sql: "SELECT sourceKey, crashes FROM main.decoderCrash ORDER BY sourceKey")
            position = 0
            while let row = try rows.next() {
                position += 1
                let shown = "its decoder-crash row \(position)"
                guard case .string(let key) = (row[0] as DatabaseValue).storage, case .int64(let count) = (row[1] as DatabaseValue).storage else {
                    throw Self.bad("\(shown) has a source key that is not text or a count that is not a whole number")
                }
                let crash = CatalogDecoderCrash(sourceKey: key, crashes: Int(count))
                if let problem = rules.problem(with: crash) { throw Self.bad("\(shown) has \(problem)") }
                guard keys.insert(key).inserted else { throw Self.bad("\(shown) counts the source key \(Quoted(key)) a second time") }
                crashes.append(crash)
            }
        }
        var pairs: [CatalogNotACopy] = []
        if columns["notACopy"] != nil {
            var marked: Set<[UUID]> = []
            let rows = try Row.fetchCursor(db, sql: "SELECT utensilId, otherId FROM main.notACopy ORDER BY utensilId, otherId")
            position = 0
            while let row = try rows.next() {
                position += 1
                let shown = "its not-a-copy row \(position)"
                let id = try Self.id(row[0] as DatabaseValue, shown: shown, what: "names the utensil")
                let other = try Self.id(row[1] as DatabaseValue, shown: shown, what: "names the other utensil")
                guard ids.contains(id), ids.contains(other) else {
                    throw Self.bad("\(shown) names a utensil the catalog does not hold")
                }
                guard id.uuidString < other.uuidString else { throw Self.bad("\(shown) does not name the smaller id first") }
                guard marked.insert([id, other]).inserted else { throw Self.bad("\(shown) marks its pair a second time") }
                pairs.append(CatalogNotACopy(id, other))
            }
        }
        return CatalogContents(utensils: utensils, favorites: favorites, decoderCrashes: crashes, notACopy: pairs)
    }

    /// Row `position` (in id order) of `utensil` as a record, checked.
    private mutating func utensil(_ row: Row, position: Int) throws -> UtensilRecord {
        let id = try Self.id(row["id"] as DatabaseValue, shown: "its utensil row \(position)", what: "has the id")
        let shown = "its utensil \(id.uuidString)"
        func text(_ column: String) throws -> String {
            guard case .string(let value) = (row[column] as DatabaseValue).storage else { throw Self.bad("\(shown) has a \(column) that is not text") }
            return value
        }
        func optionalText(_ column: String) throws -> String? {
            (row[column] as DatabaseValue).isNull ? nil : try text(column)
        }
        func number(_ column: String) throws -> Int {
            guard case .int64(let value) = (row[column] as DatabaseValue).storage else { throw Self.bad("\(shown) has a \(column) that is not a whole number") }
            return Int(value)
        }
        func date(_ column: String) throws -> Date {
            guard case .string(let value) = (row[column] as DatabaseValue).storage, let date = CatalogDate.date(fromText: value) else {
                throw Self.bad("\(shown) has a \(column) that is not a date as utensild writes one (yyyy-MM-dd HH:mm:ss.SSS)")
            }
            return date
        }
        func optionalDate(_ column: String) throws -> Date? {
            (row[column] as DatabaseValue).isNull ? nil : try date(column)
        }
        let name = try text("name")
        let nameKey = UtensilName.uniquenessKey(for: name)
        let sha256 = try text("sha256")
        let contentClaim = try optionalText("contentClaim")
        var record = UtensilRecord(
            id: id, name: name, nameKey: nameKey, searchKey: UtensilName.searchKey(for: name),
            fileExtension: try text("extension"), createdAt: try date("createdAt"),
            width: try number("width"), height: try number("height"), bytes: try number("bytes"), sha256: sha256,
            sourceKey: try optionalText("sourceKey"), nameClaim: try optionalText("nameClaim") == nil ? nil : nameKey,
            contentClaim: contentClaim, category: try optionalText("category"), addedBy: try optionalText("addedBy"),
            updatedAt: try optionalDate("updatedAt"), trashedAt: try optionalDate("trashedAt"), host: try optionalText("host"),
            fingerprint: (row["fingerprint"] as DatabaseValue).isNull ? nil : Int64(try number("fingerprint")))
        if let of = try optionalText("nearDuplicateOf"), let near = UUID(uuidString: of), let name = try optionalText("nearDuplicateName"),
            !(row["nearDuplicateDistance"] as DatabaseValue).isNull {
            record.nearDuplicate = NearDuplicate(id: near, name: name, distance: try number("nearDuplicateDistance"))
        }
        if let problem = rules.problem(with: record) { throw Self.bad("\(shown) has \(problem)") }
        if let contentClaim, contentClaim != sha256 { throw Self.bad("\(shown) has a content claim that is not its checksum") }
        guard ids.insert(id).inserted else { throw Self.bad("\(shown) is there twice") }
        for (what, key, seen) in [
            ("source key", record.sourceKey, \RowReader.sourceKeys), ("name (duplicate names are refused)", record.nameClaim, \.nameClaims),
            ("content (duplicate photos are refused)", record.contentClaim, \.contentClaims),
        ] as [(String, String?, WritableKeyPath<RowReader, [String: UUID]>)] {
            guard let key else { continue }
            if let other = self[keyPath: seen][key] { throw Self.bad("\(shown) has the same \(what) as the utensil \(other.uuidString)") }
            self[keyPath: seen][key] = id
        }
        return record
    }

    /// A stored id: text, a UUID as utensild writes one (upper case).
    private static func id(_ value: DatabaseValue, shown: String, what: String) throws -> UUID {
        guard case .string(let text) = value.storage else { throw bad("\(shown) \(what) \(value), which is not text") }
        guard let id = UUID(uuidString: text), id.uuidString == text else {
            throw bad("\(shown) \(what) \(Quoted(text)), which is not a UUID as utensild writes one")
        }
        return id
    }

    private static func bad(_ problem: String) -> CatalogFileProblem { .badRow(problem) }
}

/// Text from the file, quoted and with whatever could hide or break a line escaped.
struct Quoted: CustomStringConvertible {
    let text: String

    init(_ text: String) { self.text = text }

    var description: String {
        let shown = text.count > 80 ? String(text.prefix(80)) + "…" : text
        return "\"" + VisibleText.escaped(shown, special: { $0 == "\"" || $0 == "\\" ? "\\" + String($0) : nil }) + "\""
    }
}

/// Why a catalog file cannot be restored.
public enum CatalogFileProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// SQLite cannot open or read it (not a database, truncated, …).
    case unreadable(String)
    /// `PRAGMA integrity_check` found damage.
    case damaged(String)
    /// A SQLite database, but not a utensild catalog.
    case notACatalog
    /// Written by a newer utensild (a migration this one does not know).
    case newer(migration: String)
    /// Its schema is not utensild's: another table, trigger, view or index, or other columns.
    case unexpectedSchema(String)
    /// A row that is not sound (what is wrong, naming the row).
    case badRow(String)

    public var description: String {
        switch self {
        case .unreadable(let detail): "SQLite cannot read it (\(detail))"
        case .damaged(let detail): "SQLite's integrity check found it damaged (\(detail))"
        case .notACatalog: "it is a SQLite database but not a utensild catalog"
        case .newer(let migration): "a newer utensild wrote it (its schema has \(migration), which this version does not know)"
        case .unexpectedSchema(let problem), .badRow(let problem): problem
        }
    }

    /// What to do about it, as the end of a sentence.
    public var advice: String {
        switch self {
        case .newer: "restore it with that version or a later one"
        default: "restore from another backup"
        }
    }
}
