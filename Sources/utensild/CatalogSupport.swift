import ArgumentParser
import Foundation
import Logging
import PostgresNIO
import UtensilCatalogSQLite
import UtensilCatalogModel
import UtensilCatalogPostgres
import UtensilConfig
import UtensilDaemon

/// Opening the configured catalog for the daemon, `--oneshot` and `restore`: SQLite's file in
/// `state_dir`, or PostgreSQL.
enum CatalogSupport {
    /// Runs `body` with the configured catalog: nil for SQLite (the daemon opens the file in
    /// `state_dir` itself); for PostgreSQL, a ``PostgresCatalog`` whose pool of connections
    /// (``PostgresPool``: replaced as soon as the server answers after an outage) runs until
    /// `body` returns, its schema migrated first (once, whoever starts first), and its change
    /// feed (``PostgresChangeFeed``, this host publishing as `host_name`). With `waiting`, a
    /// server that cannot be reached yet is waited for (the daemon); without, that is thrown at
    /// once as a ``PostgresCatalogProblem`` (a command someone waits on).
    static func withCatalog<T: Sendable>(
        _ configuration: UtensilConfiguration, environment: [String: String], logger: Logger, waiting: Bool = true,
        _ body: @Sendable ((any CatalogBackend)?, (any CatalogChangeFeed)?) async throws -> T
    ) async throws -> T {
        guard let settings = try PostgresCatalogSettings(configuration: configuration, environment: environment) else {
            return try await body(nil, nil)
        }
        let pool = PostgresPool(settings: settings, logger: logger.demotedToDebug)
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                await pool.run()
                return nil
            }
            defer { group.cancelAll() }
            let applied = waiting
                ? try await migrateWhenReachable(settings, logger: logger)
                : try await PostgresMigrator.migrate(settings: settings, logger: logger)
            if !applied.isEmpty {
                logger.notice("Prepared the PostgreSQL catalog (\(settings)): applied \(applied.joined(separator: ", "))")
            }
            let catalog = PostgresCatalog(pool: pool, snapshotWriter: SQLiteSnapshotWriter(), logger: logger)
            return try await body(
                catalog, PostgresChangeFeed(catalog: catalog, settings: settings, host: configuration.effectiveHostName))
        }
    }
}

extension CatalogSupport {
    /// Runs `body` with the opener of the backends the configuration chose, the one place
    /// they are chosen: the PostgreSQL catalog (its pool running until `body` returns, as
    /// ``withCatalog(_:environment:logger:waiting:_:)`` runs it) or the SQLite file in
    /// `state_dir`, and the storage `storage` names (``Backends/storage(_:settings:environment:faults:)``).
    static func withBackends<T: Sendable>(
        _ configuration: UtensilConfiguration, environment: [String: String], logger: Logger, waiting: Bool = true,
        _ body: @Sendable (@escaping Backends.Opener) async throws -> T
    ) async throws -> T {
        try await withCatalog(configuration, environment: environment, logger: logger, waiting: waiting) { catalog, changeFeed in
            guard let catalog else {
                return try await body { settings, logger in
                    try Backends.local(
                        settings, logger: logger,
                        storage: Backends.storage(configuration, settings: settings, environment: environment))
                }
            }
            return try await body { settings, _ in
                Backends(
                    catalog: catalog, changeFeed: changeFeed,
                    storage: try Backends.storage(configuration, settings: settings, environment: environment))
            }
        }
    }

    /// Migrates the catalog; while the server cannot be reached (or is starting or shutting
    /// down), waits and tries again with back-off (5 s, doubling, at most 60 s), saying so
    /// once in the journal and once when it answers. Any other problem (authentication,
    /// rights, a missing database …) is thrown at once: waiting would not mend it.
    static func migrateWhenReachable(_ settings: PostgresCatalogSettings, logger: Logger) async throws -> [String] {
        var attempt = 0
        while true {
            let problem: PostgresCatalogProblem
            do {
                let applied = try await PostgresMigrator.migrate(settings: settings, logger: logger)
                if attempt > 0 { logger.notice("The PostgreSQL catalog answers (\(settings)); starting") }
                return applied
            } catch {
                problem = error
            }
            guard Self.isWorthWaiting(problem) else { throw problem }
            if attempt == 0 {
                logger.warning("The PostgreSQL catalog cannot be used yet (\(problem)); waiting for it, trying again with back-off")
            }
            attempt += 1
            try await Task.sleep(for: .seconds(min(60, 5 << min(attempt - 1, 4))))
        }
    }

    /// Whether `problem` may mend itself (the server down, starting or shutting down).
    static func isWorthWaiting(_ problem: PostgresCatalogProblem) -> Bool {
        switch problem {
        case .unreachable, .unavailable: true
        default: false
        }
    }

    /// `--check-config` with a PostgreSQL catalog: reads the password, connects and checks
    /// (``PostgresCatalogCheck``). Returns the lines to print after the configuration (TOML
    /// comments: the report and where the password came from), or nothing
    /// for SQLite; on a problem, prints its sentence and throws exit code 78.
    static func check(_ configuration: UtensilConfiguration, environment: [String: String]) async throws -> [String] {
        guard case .postgres(let url) = configuration.catalog else { return [] }
        let source = configuration.catalogPasswordSource(environment: environment)
        let logger = Logger(label: "utensild.check-config") { _ in SwiftLogNoOpLogHandler() }
        do {
            let settings = PostgresCatalogSettings(url: url, password: try source.read())
            let report = try await PostgresCatalogCheck.run(settings: settings, logger: logger)
            return ["# catalog: \(report)", "# catalog: \(source)"]
        } catch let error as CatalogPasswordError {
            throw failure("\(error)")
        } catch let problem as PostgresCatalogProblem {
            throw failure("catalog: \(problem)")
        }
    }

    private static func failure(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("utensild: \(message)\n".utf8))
        return ExitCode(78)
    }
}
