import Logging
import PostgresNIO
import UtensilControlProtocol

/// Applies ``PostgresSchema/migrations`` once, whoever starts first: in one transaction
/// holding the advisory lock ``lockKey``, the migrations table is created if missing, and
/// every migration not recorded in it is applied and recorded. A second host starting at the
/// same time waits for the lock, then finds them recorded and applies nothing. A failure rolls
/// the whole transaction back: no half-applied migration. A catalog that a newer utensild
/// migrated (migrations recorded that this one does not know) is refused, changing nothing.
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
                let appliedNames = try await appliedNames(connection, logger: logger)
                if let newer = try await newerSchema(applied: appliedNames, connection, database: settings.url.database, logger: logger) {
                    throw newer
                }
                let applied = Set(appliedNames)
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

    /// ``PostgresCatalogProblem/schemaNewer(migrations:database:version:newerVersion:)`` when
    /// `applied` holds migrations this utensild (`version`) does not know, naming the newest
    /// version a host's heartbeat in `hosts` shows, if it is newer than `version`; else nil.
    static func newerSchema(
        applied: [String], _ connection: PostgresConnection, database: String, version: String = UtensildVersion.current,
        logger: Logger
    ) async throws -> PostgresCatalogProblem? {
        let known = Set(PostgresSchema.migrations.map(\.name))
        let unknown = applied.filter { !known.contains($0) }.sorted()
        guard !unknown.isEmpty else { return nil }
        var newest: String?
        let exists = try await connection.query("SELECT to_regclass('hosts') IS NOT NULL", logger: logger)
        var hostsExist = false
        for try await (value) in exists.decode(Bool.self) { hostsExist = value }
        if hostsExist {
            for try await (hostVersion) in try await connection.query("SELECT DISTINCT version FROM hosts", logger: logger).decode(String.self)
            where isVersion(hostVersion, newerThan: newest ?? version) {
                newest = hostVersion
            }
        }
        return .schemaNewer(migrations: unknown, database: database, version: version, newerVersion: newest)
    }

    /// Whether dotted version `a` is newer than `b`, number by number (`0.10.0` > `0.9.1`);
    /// a part that is not a number counts as 0.
    static func isVersion(_ a: String, newerThan b: String) -> Bool {
        func numbers(_ text: String) -> [Int] {
            text.split(whereSeparator: { !$0.isNumber && $0 != "." }).first.map {
                $0.split(separator: ".").map { Int($0) ?? 0 }
            } ?? []
        }
        let (left, right) = (numbers(a), numbers(b))
        for index in 0..<max(left.count, right.count) {
            let (x, y) = (index < left.count ? left[index] : 0, index < right.count ? right[index] : 0)
            if x != y { return x > y }
        }
        return false
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
