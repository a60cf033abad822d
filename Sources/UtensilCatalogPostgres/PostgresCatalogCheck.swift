import Logging
import PostgresNIO

/// What `utensild --check-config` learns from the PostgreSQL catalog: the server answers,
/// the role logs in, the database exists, the server is new enough, and the role has the
/// rights the catalog needs — to create the schema while migrations are pending, to read and
/// write its tables once they are applied. It changes nothing.
public enum PostgresCatalogCheck {
    /// PostgreSQL 13: `pg_trgm` is a trusted extension from then on, and `gen_random_uuid()` built in.
    public static let minimumServerVersion = 130_000
    static let minimumServerVersionText = "13"

    /// Connects, checks and disconnects; throws the first problem found.
    public static func run(settings: PostgresCatalogSettings, logger: Logger) async throws(PostgresCatalogProblem) -> PostgresCatalogReport {
        let connection = try await connect(settings, logger: logger)
        let result: Result<PostgresCatalogReport, PostgresCatalogProblem>
        do {
            result = .success(try await check(connection, settings: settings, logger: logger))
        } catch {
            result = .failure(PostgresCatalogProblem.classify(error, settings: settings))
        }
        try? await connection.close()
        return try result.get()
    }

    /// One connection to the catalog's database, or the problem that prevents it. When
    /// pg_hba.conf has no line for a connection without TLS (`sslmode=disable`), a second
    /// connection with TLS finds out whether the server would let the role in that way
    /// (`hostssl` lines): then the problem is ``PostgresCatalogProblem/tlsRequired(user:database:server:)``.
    public static func connect(_ settings: PostgresCatalogSettings, logger: Logger) async throws(PostgresCatalogProblem) -> PostgresConnection {
        let problem: PostgresCatalogProblem
        do {
            return try await PostgresConnection.connect(configuration: settings.connectionConfiguration(), id: 1, logger: logger)
        } catch {
            problem = PostgresCatalogProblem.classify(error, settings: settings)
        }
        let url = settings.url
        if case .noHostRule = problem, case .tcp = url.server, url.sslMode == .disable,
           await passesHostRules(overTLS: settings, logger: logger) {
            throw .tlsRequired(user: url.user, database: url.database, server: url.serverDescription)
        }
        throw problem
    }

    /// Whether a connection with TLS (`sslmode=require`, nothing verified: only pg_hba.conf's
    /// verdict matters here) gets past pg_hba.conf; it is closed at once.
    private static func passesHostRules(overTLS settings: PostgresCatalogSettings, logger: Logger) async -> Bool {
        var probe = settings
        probe.url.sslMode = .require
        probe.url.sslRootCert = nil
        do {
            let connection = try await PostgresConnection.connect(configuration: probe.connectionConfiguration(), id: 2, logger: logger)
            try? await connection.close()
            return true
        } catch {
            switch PostgresCatalogProblem.classify(error, settings: probe) {
            case .authenticationFailed, .passwordMissing, .authenticationUnsupported, .authenticationRefused, .roleMissing,
                 .databaseMissing, .noRights:
                return true
            default:
                return false
            }
        }
    }

    private static func check(
        _ connection: PostgresConnection, settings: PostgresCatalogSettings, logger: Logger
    ) async throws -> PostgresCatalogReport {
        let url = settings.url
        var report = PostgresCatalogReport(serverVersion: "", server: url.serverDescription, user: "", database: "", schema: nil, applied: [], pending: [])
        var versionNumber = 0
        let identity = try await connection.query(
            """
            SELECT current_setting('server_version_num')::int, current_setting('server_version'),
                   current_user::text, current_database()::text, current_schema()::text
            """, logger: logger)
        for try await (number, version, user, database, schema) in identity.decode((Int, String, String, String, String?).self) {
            versionNumber = number
            report.serverVersion = version
            report.user = user
            report.database = database
            report.schema = schema
        }
        guard versionNumber >= minimumServerVersion else {
            throw PostgresCatalogProblem.serverTooOld(version: report.serverVersion, server: report.server)
        }
        let readable = try await connection.query(
            "SELECT to_regclass('utensild_migrations') IS NULL OR has_table_privilege('utensild_migrations', 'SELECT')",
            logger: logger)
        for try await (allowed) in readable.decode(Bool.self) where !allowed {
            throw PostgresCatalogProblem.noRights(
                user: report.user, database: report.database, missing: "read and write the table \(PostgresSchema.migrationsTable)",
                grant: PostgresCatalogProblem.grantAdvice(user: report.user, database: report.database))
        }
        let applied = try await PostgresMigrator.appliedNames(connection, logger: logger)
        if let newer = try await PostgresMigrator.newerSchema(applied: applied, connection, database: report.database, logger: logger) {
            throw newer
        }
        report.applied = PostgresSchema.migrations.map(\.name).filter(applied.contains)
        report.pending = PostgresSchema.migrations.map(\.name).filter { !applied.contains($0) }
        if let missing = try await missingRight(connection, report: report, logger: logger) {
            throw PostgresCatalogProblem.noRights(
                user: report.user, database: report.database, missing: missing,
                grant: PostgresCatalogProblem.grantAdvice(user: report.user, database: report.database))
        }
        return report
    }

    /// What the role may not do that the catalog needs, or nil.
    private static func missingRight(
        _ connection: PostgresConnection, report: PostgresCatalogReport, logger: Logger
    ) async throws -> String? {
        if report.pending.isEmpty {
            for table in PostgresSchema.tables {
                let query: PostgresQuery = "SELECT has_table_privilege(\(table), 'SELECT, INSERT, UPDATE, DELETE')"
                for try await (allowed) in try await connection.query(query, logger: logger).decode(Bool.self) where !allowed {
                    return "read and write the table \(table)"
                }
            }
            return nil
        }
        guard let schema = report.schema else {
            return "create tables: no schema of its search_path exists (create schema public, or set search_path)"
        }
        var right: String?
        let rights = try await connection.query(
            """
            SELECT has_schema_privilege(current_schema(), 'CREATE'),
                   has_database_privilege(current_database(), 'CREATE'),
                   EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'),
                   EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm')
            """, logger: logger)
        for try await (createInSchema, createInDatabase, hasTrigrams, trigramsAvailable) in rights.decode((Bool, Bool, Bool, Bool).self) {
            if !hasTrigrams && !trigramsAvailable {
                throw PostgresCatalogProblem.extensionMissing(name: "pg_trgm", server: report.server)
            }
            if !createInSchema {
                right = "create tables in the schema \(schema)"
            } else if !hasTrigrams && !createInDatabase {
                right = "create the extension pg_trgm"
            }
        }
        return right
    }
}

/// What the check found: the server, who utensild is there, and the schema's state.
public struct PostgresCatalogReport: Sendable, Equatable, CustomStringConvertible {
    /// `15.18 (Debian 15.18-0+deb12u1)`.
    public var serverVersion: String
    /// Where, as ``PostgresURL/serverDescription`` says it.
    public var server: String
    public var user: String
    public var database: String
    /// Where the tables are made (the first schema of the role's search_path that exists).
    public var schema: String?
    /// Migrations applied, in order.
    public var applied: [String]
    /// Migrations not applied yet (the first utensild to start with this catalog applies them).
    public var pending: [String]

    /// One line: `connected to PostgreSQL 15.18 at 127.0.0.1:5432 as utensil, database utensils; …`.
    public var description: String {
        let version = serverVersion.split(separator: " ").first.map(String.init) ?? serverVersion
        let schemaState = pending.isEmpty
            ? "migrations: all \(applied.count) applied"
            : "migrations: \(pending.count) of \(applied.count + pending.count) pending (\(pending.joined(separator: ", ")))"
        return "connected to PostgreSQL \(version) at \(server) as \(user), database \(database); \(schemaState)"
    }
}
