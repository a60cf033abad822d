import Logging
import PostgresNIO
import ServiceLifecycle

/// The PostgreSQL catalog's pool of connections, as one service of the daemon's
/// `ServiceGroup`: ``run()`` keeps the pool until the group shuts down (gracefully: the
/// connections are closed). ``client`` leases connections only while it runs.
public struct PostgresCatalogService: Service {
    public let client: PostgresClient

    public init(settings: PostgresCatalogSettings, logger: Logger) {
        client = PostgresClient(configuration: settings.clientConfiguration, backgroundLogger: logger)
    }

    /// Runs the pool; returns once the group shuts down or the task is cancelled. Call it once.
    public func run() async throws {
        await client.run()
    }
}
