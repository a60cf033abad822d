import Logging
import PostgresNIO
import UtensilCatalogSQLite
import UtensilCatalogPostgres
import UtensilConfig
import UtensilTestSupport

extension PostgresServer {
    /// Settings for the test role over loopback TCP (or the socket), with its password unless told otherwise.
    func settings(
        user: String? = nil, password: String?? = .none, database: String? = nil, overSocket: Bool = false
    ) -> PostgresCatalogSettings {
        let url = PostgresURL(
            user: user ?? role, server: overSocket ? .unixSocket(directory: socketDirectory) : .tcp(host: "127.0.0.1"),
            port: port, database: database ?? self.database)
        let chosen: String? = switch password {
        case .none: self.password
        case .some(let given): given
        }
        return PostgresCatalogSettings(url: url, password: chosen)
    }
}

extension PostgresServer {
    /// Runs `body` with a catalog on this server's database: migrated, its pool of connections
    /// running until `body` returns. `group` is the task group the pool runs in, for tasks of
    /// the test's own (cancelled with it).
    func withRunningCatalog(
        searchPlan: PostgresSearchPlan = .standard,
        _ body: (PostgresCatalogSettings, PostgresCatalog, inout ThrowingTaskGroup<Void, any Error>) async throws -> Void
    ) async throws {
        let settings = settings()
        _ = try await PostgresMigrator.migrate(settings: settings, logger: quietLogger)
        let client = PostgresClient(configuration: settings.clientConfiguration, backgroundLogger: quietLogger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            let catalog = PostgresCatalog(
                client: client, snapshotWriter: SQLiteSnapshotWriter(), logger: quietLogger, searchPlan: searchPlan)
            try await body(settings, catalog, &group)
        }
    }
}

let quietLogger = Logger(label: "postgres-test") { _ in SwiftLogNoOpLogHandler() }
