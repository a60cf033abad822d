import Foundation
import Glibc
import Synchronization
import Logging
import PostgresNIO
import UtensilCatalogSQLite
import UtensilCatalogModel
import UtensilCatalogPostgres
import UtensilConfig
import UtensilTestSupport

extension BackendUnderTest {
    /// A PostgreSQL catalog: a fresh database (`contract_<uuid>`, owned by the test role,
    /// migrated by ``PostgresMigrator``) on the one server of this test process; `another` is
    /// a second pool of connections on it; `remove` closes both and drops the database.
    static let postgres = BackendUnderTest(description: "PostgreSQL") {
        let server = try ContractPostgres.server.get()
        let database = "contract_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try server.superuserSQL("CREATE DATABASE \(database) OWNER \(server.role)")
        let settings = PostgresCatalogSettings(
            url: PostgresURL(user: server.role, server: .tcp(host: "127.0.0.1"), port: server.port, database: database),
            password: server.password)
        _ = try await PostgresMigrator.migrate(settings: settings, logger: ContractPostgres.logger)
        let clients = ContractPostgres.Clients(settings: settings)
        return OpenedCatalog(
            backend: clients.catalog(),
            another: { clients.catalog() },
            remove: {
                await clients.stop()
                _ = try? server.superuserSQL("DROP DATABASE \(database) WITH (FORCE)")
            })
    }
}

/// The PostgreSQL server the contract runs on: one per test process, started at first use
/// and removed when the process exits.
enum ContractPostgres {
    static let server: Result<PostgresServer, any Error> = {
        let result = Result { try PostgresServer() }
        atexit {
            if case .success(let server) = ContractPostgres.server { server.remove() }
        }
        return result
    }()

    static let logger = Logger(label: "contract-postgres") { _ in SwiftLogNoOpLogHandler() }

    /// The pools of connections of one test's catalog, each running until ``stop()``.
    final class Clients: Sendable {
        private let settings: PostgresCatalogSettings
        private let running = Mutex<[Task<Void, Never>]>([])

        init(settings: PostgresCatalogSettings) { self.settings = settings }

        /// A catalog on a new pool of connections.
        func catalog() -> PostgresCatalog {
            var configuration = settings.clientConfiguration
            configuration.options.maximumConnections = 8
            let client = PostgresClient(configuration: configuration, backgroundLogger: ContractPostgres.logger)
            running.withLock { $0.append(Task { await client.run() }) }
            return PostgresCatalog(client: client, snapshotWriter: SQLiteSnapshotWriter(), logger: ContractPostgres.logger)
        }

        /// Shuts every pool down and waits until its connections are closed.
        func stop() async {
            let tasks = running.withLock { tasks in
                defer { tasks = [] }
                return tasks
            }
            for task in tasks {
                task.cancel()
                await task.value
            }
        }
    }
}
