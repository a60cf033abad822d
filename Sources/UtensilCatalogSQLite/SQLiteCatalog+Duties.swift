import Foundation
import GRDB
import UtensilCatalogModel

/// The duties one host at a time does (the table `duties`, migration `v9-duties`): see
/// ``CatalogDuties``. Its name and columns are those of PostgreSQL's table `duties`.
extension SQLiteCatalog {
    /// The migration `v9-duties`: one row per duty, its holder and its lease.
    static func createDuties(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE duties(
                name TEXT NOT NULL PRIMARY KEY,
                holder TEXT NOT NULL,
                until DATETIME NOT NULL
            ) WITHOUT ROWID;
            """)
    }

    public func claimDuty(_ duty: String, for host: String, now: Date, until: Date) throws(CatalogError) -> Bool {
        try write { db in
            // One statement: the row is taken when it is new, already this host's, or its lease ran out.
            try Row.fetchOne(
                db,
                sql: """
                    INSERT INTO duties(name, holder, until) VALUES (?, ?, ?)
                    ON CONFLICT(name) DO UPDATE SET holder = excluded.holder, until = excluded.until
                    WHERE duties.holder = excluded.holder OR duties.until < ?
                    RETURNING holder
                    """,
                arguments: [duty, host, CatalogDate.value(until), CatalogDate.value(now)]) != nil
        }
    }

    public func forgetDuties(expiredBefore before: Date) throws(CatalogError) -> Int {
        try write { db in
            try db.execute(sql: "DELETE FROM duties WHERE until < ?", arguments: [CatalogDate.value(before)])
            return db.changesCount
        }
    }
}
