import Logging
import PostgresNIO
import ServiceLifecycle

/// The PostgreSQL catalog's pool of connections, as one service of a `ServiceGroup`:
/// ``run()`` keeps the pool until the group shuts down (gracefully: the connections are
/// closed). ``pool`` leases connections only while it runs.
public struct PostgresCatalogService: Service {
    public let pool: PostgresPool

    public init(settings: PostgresCatalogSettings, logger: Logger) {
        pool = PostgresPool(settings: settings, logger: logger)
    }

    /// Runs the pool; returns once the group shuts down or the task is cancelled. Call it once.
    public func run() async throws {
        await cancelWhenGracefulShutdown { await pool.run() }
    }
}
