import Foundation
import GRDB
import UtensilCatalogModel

/// The event log (the table `events`, migration `v10-events`): see ``CatalogEventLog``. Its
/// name and columns are those of PostgreSQL's table `events`. `AUTOINCREMENT` keeps a `seq`
/// from being used again once older events are pruned; SQLite's single writer assigns them in
/// commit order.
extension SQLiteCatalog {
    static func createEvents(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE events(
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                host TEXT NOT NULL,
                payload TEXT NOT NULL
            );
            """)
    }

    public func appendEvents(_ payloads: [String], host: String) throws(CatalogError) -> [Int64] {
        guard !payloads.isEmpty else { return [] }
        return try write { db in
            var seqs: [Int64] = []
            for payload in payloads {
                try db.execute(sql: "INSERT INTO events(host, payload) VALUES (?, ?)", arguments: [host, payload])
                seqs.append(db.lastInsertedRowID)
            }
            return seqs
        }
    }

    public func events(after seq: Int64, limit: Int) throws(CatalogError) -> [CatalogEvent] {
        try read { db in
            try Row.fetchAll(
                db, sql: "SELECT seq, host, payload FROM events WHERE seq > ? ORDER BY seq LIMIT ?",
                arguments: [seq, max(0, limit)]
            ).map { CatalogEvent(seq: $0["seq"], host: $0["host"], payload: $0["payload"]) }
        }
    }

    public func eventRange() throws(CatalogError) -> ClosedRange<Int64>? {
        try read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT min(seq) AS oldest, max(seq) AS newest FROM events"),
                let oldest: Int64 = row["oldest"], let newest: Int64 = row["newest"]
            else { return nil }
            return oldest...newest
        }
    }

    public func pruneEvents(keeping: Int) throws(CatalogError) {
        try write { db in
            try db.execute(
                sql: "DELETE FROM events WHERE seq <= (SELECT max(seq) FROM events) - ?", arguments: [max(0, keeping)])
        }
    }
}
