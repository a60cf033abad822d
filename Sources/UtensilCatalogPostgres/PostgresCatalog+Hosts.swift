import Foundation
import Logging
import PostgresNIO
import UtensilCatalogModel

/// The hosts' heartbeats (the table `hosts`, migration `v1-hosts`): ``CatalogHostRegistry``,
/// which every ``CatalogBackend`` is.
extension PostgresCatalog {
    public func beat(_ heartbeat: HostHeartbeat) async throws(CatalogError) {
        let logger = logger
        try await read { connection in
            _ = try await connection.query(
                """
                INSERT INTO hosts (name, version, started_at, last_seen, stopped_at, queued, ingested, rejected)
                VALUES (\(heartbeat.name), \(heartbeat.version), \(heartbeat.startedAt), \(heartbeat.lastSeen),
                        \(heartbeat.stoppedAt), \(heartbeat.queued), \(heartbeat.ingested), \(heartbeat.rejected))
                ON CONFLICT (name) DO UPDATE SET
                    version = excluded.version, started_at = excluded.started_at,
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
                SELECT name, version, started_at, last_seen, stopped_at, queued, ingested, rejected
                FROM hosts ORDER BY name
                """, logger: logger)
            var hosts: [HostHeartbeat] = []
            for try await (name, version, startedAt, lastSeen, stoppedAt, queued, ingested, rejected)
                in rows.decode((String, String, Date, Date, Date?, Int, Int, Int).self)
            {
                hosts.append(HostHeartbeat(
                    name: name, version: version, startedAt: startedAt, lastSeen: lastSeen, stoppedAt: stoppedAt,
                    queued: queued, ingested: ingested, rejected: rejected))
            }
            return hosts
        }
    }
}
