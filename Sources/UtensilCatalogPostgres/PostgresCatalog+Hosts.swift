import Foundation
import Logging
import PostgresNIO
import UtensilCatalogModel

/// The hosts' heartbeats (the table `hosts`, migrations `v1-hosts` and `v5-hosts-schema`):
/// ``CatalogHostRegistry``, which every ``CatalogBackend`` is.
extension PostgresCatalog {
    /// How many of ``PostgresSchema/migrations`` this utensild knows: all of them.
    public var knownSchema: Int { PostgresSchema.migrations.count }

    public func beat(_ heartbeat: HostHeartbeat) async throws(CatalogError) {
        let logger = logger
        try await read { connection in
            _ = try await connection.query(
                """
                INSERT INTO hosts (name, version, schema, started_at, last_seen, stopped_at, queued, ingested, rejected)
                VALUES (\(heartbeat.name), \(heartbeat.version), \(heartbeat.schema), \(heartbeat.startedAt),
                        \(heartbeat.lastSeen), \(heartbeat.stoppedAt), \(heartbeat.queued), \(heartbeat.ingested),
                        \(heartbeat.rejected))
                ON CONFLICT (name) DO UPDATE SET
                    version = excluded.version, schema = excluded.schema, started_at = excluded.started_at,
                    last_seen = excluded.last_seen, stopped_at = excluded.stopped_at,
                    queued = excluded.queued, ingested = excluded.ingested, rejected = excluded.rejected
                """, logger: logger)
        }
    }

    public func hosts() async throws(CatalogError) -> [HostHeartbeat] {
        let logger = logger
        return try await read { connection in
            let rows = try await connection.query(
                """
                SELECT name, version, schema, started_at, last_seen, stopped_at, queued, ingested, rejected
                FROM hosts ORDER BY name
                """, logger: logger)
            var hosts: [HostHeartbeat] = []
            for try await (name, version, schema, startedAt, lastSeen, stoppedAt, queued, ingested, rejected)
                in rows.decode((String, String, Int?, Date, Date, Date?, Int, Int, Int).self)
            {
                hosts.append(HostHeartbeat(
                    name: name, version: version, schema: schema, startedAt: startedAt, lastSeen: lastSeen,
                    stoppedAt: stoppedAt, queued: queued, ingested: ingested, rejected: rejected))
            }
            return hosts
        }
    }
}
