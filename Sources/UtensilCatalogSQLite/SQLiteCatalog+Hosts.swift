import Foundation
import GRDB
import UtensilCatalogModel

/// The hosts' heartbeats (the table `hosts`, migrations `v7-hosts` and `v11-hosts-schema`): see
/// ``CatalogHostRegistry``. Its name and columns are those of PostgreSQL's table `hosts`, so
/// that a row means the same in either catalog.
extension SQLiteCatalog {
    /// The migration `v7-hosts`: one row per host, written by the host itself.
    static func createHosts(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE hosts(
                name TEXT NOT NULL PRIMARY KEY
                    CHECK (length(name) BETWEEN 1 AND 63 AND name NOT GLOB '*[^A-Za-z0-9.-]*'),
                version TEXT NOT NULL,
                started_at DATETIME NOT NULL,
                last_seen DATETIME NOT NULL,
                stopped_at DATETIME,
                queued INTEGER NOT NULL DEFAULT 0,
                ingested INTEGER NOT NULL DEFAULT 0,
                rejected INTEGER NOT NULL DEFAULT 0
            ) WITHOUT ROWID;
            """)
    }

    /// The migration `v11-hosts-schema`: the newest schema each host's utensild knows (see
    /// ``knownSchema``); null in rows written by older versions.
    static func addHostsSchema(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE hosts ADD COLUMN schema INTEGER")
    }

    /// How many of the SQLite catalog's migrations this utensild knows: all of them.
    public static let knownSchema = migrator.migrations.count

    /// How many of the SQLite catalog's migrations this utensild knows: all of them.
    public var knownSchema: Int { Self.knownSchema }

    /// Writes `heartbeat` as its host's row, replacing the previous one.
    public func beat(_ heartbeat: HostHeartbeat) throws(CatalogError) {
        try write { db in
            try db.execute(
                sql: """
                    INSERT INTO hosts(name, version, schema, started_at, last_seen, stopped_at, queued, ingested, rejected)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(name) DO UPDATE SET
                        version = excluded.version, schema = excluded.schema, started_at = excluded.started_at,
                        last_seen = excluded.last_seen, stopped_at = excluded.stopped_at,
                        queued = excluded.queued, ingested = excluded.ingested, rejected = excluded.rejected
                    """,
                arguments: [
                    heartbeat.name, heartbeat.version, heartbeat.schema, CatalogDate.value(heartbeat.startedAt),
                    CatalogDate.value(heartbeat.lastSeen), heartbeat.stoppedAt.map(CatalogDate.value),
                    heartbeat.queued, heartbeat.ingested, heartbeat.rejected,
                ])
        }
    }

    /// Every host's latest heartbeat, in name order.
    public func hosts() throws(CatalogError) -> [HostHeartbeat] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT name, version, schema, started_at, last_seen, stopped_at, queued, ingested, rejected
                    FROM hosts ORDER BY name
                    """
            ).map { row in
                // Dates through CatalogDate, as the utensils' are: GRDB's own conversion loads ICU.
                func date(_ column: String) -> Date? { CatalogDate.date(from: row[column] as DatabaseValue) }
                return HostHeartbeat(
                    name: row["name"], version: row["version"], schema: row["schema"], startedAt: date("started_at") ?? .distantPast,
                    lastSeen: date("last_seen") ?? .distantPast, stoppedAt: date("stopped_at"), queued: row["queued"],
                    ingested: row["ingested"], rejected: row["rejected"])
            }
        }
    }
}
