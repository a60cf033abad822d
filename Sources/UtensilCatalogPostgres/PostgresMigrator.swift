import Logging
import PostgresNIO

/// Applies ``PostgresSchema/migrations`` once, whoever starts first: in one transaction
/// holding the advisory lock ``lockKey``, the migrations table is created if missing, and
/// every migration not recorded in it is applied and recorded. A second host starting at the
/// same time waits for the lock, then finds them recorded and applies nothing. A failure rolls
/// the whole transaction back: no half-applied migration.
public enum PostgresMigrator {
    /// The advisory lock (transaction-scoped) that serialises migrations: "utensild" in ASCII.
    public static let lockKey: Int64 = 0x7574_656E_7369_6C64

    /// Applies the pending migrations; returns the names of those this call applied.
    public static func migrate(
        _ connection: PostgresConnection, settings: PostgresCatalogSettings, logger: Logger
    ) async throws(PostgresCatalogProblem) -> [String] {
        do {
            return try await PostgresTransaction.run(on: connection, logger: logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(\(lockKey))", logger: logger)
                try await connection.query(
                    """
                    CREATE TABLE IF NOT EXISTS utensild_migrations (
                        name text PRIMARY KEY,
                        applied_at timestamptz NOT NULL DEFAULT now()
                    )
                    """, logger: logger)
                let applied = Set(try await appliedNames(connection, logger: logger))
                var appliedNow: [String] = []
                for migration in PostgresSchema.migrations where !applied.contains(migration.name) {
                    for statement in migration.statements {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                    try await connection.query("INSERT INTO utensild_migrations (name) VALUES (\(migration.name))", logger: logger)
                    appliedNow.append(migration.name)
                    logger.notice("catalog migration applied", metadata: ["migration": "\(migration.name)"])
                }
                return appliedNow
            }
        } catch {
            throw PostgresCatalogProblem.classify(error, settings: settings)
        }
    }

    /// Opens one connection, applies the pending migrations and closes it.
    public static func migrate(settings: PostgresCatalogSettings, logger: Logger) async throws(PostgresCatalogProblem) -> [String] {
        let connection = try await PostgresCatalogCheck.connect(settings, logger: logger)
        let result: Result<[String], PostgresCatalogProblem>
        do { result = .success(try await migrate(connection, settings: settings, logger: logger)) } catch { result = .failure(error) }
        try? await connection.close()
        return try result.get()
    }

    /// The migrations recorded as applied; empty when the table does not exist yet.
    static func appliedNames(_ connection: PostgresConnection, logger: Logger) async throws -> [String] {
        let exists = try await connection.query("SELECT to_regclass('utensild_migrations') IS NOT NULL", logger: logger)
        var tableExists = false
        for try await (value) in exists.decode(Bool.self) { tableExists = value }
        guard tableExists else { return [] }
        var names: [String] = []
        let rows = try await connection.query("SELECT name FROM utensild_migrations", logger: logger)
        for try await (name) in rows.decode(String.self) { names.append(name) }
        return names
    }
}
