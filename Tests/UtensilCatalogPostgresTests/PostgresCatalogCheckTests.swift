import Foundation
import Testing
import UtensilCatalogPostgres
import UtensilTestSupport

/// The check `--check-config` runs, against a real server: each way of being wrong is told
/// apart by its typed problem, and a good set-up reports the server and the schema's state.
@Suite(.tags(.spawnsProcesses)) struct PostgresCatalogCheckTests {
    @Test func aGoodSetUpReportsTheServerAndPendingThenAppliedMigrations() async throws {
        let server = try PostgresServer()
        defer { server.remove() }
        let names = PostgresSchema.migrations.map(\.name)
        for overSocket in [false, true] {
            let report = try await PostgresCatalogCheck.run(settings: server.settings(overSocket: overSocket), logger: quietLogger)
            #expect(report.serverVersion.hasPrefix("15."))
            #expect(report.user == "utensil" && report.database == "utensils" && report.schema == "public")
            #expect(report.applied == [] && report.pending == names)
            #expect(report.description.contains("connected to PostgreSQL 15."))
            #expect(report.description.contains("migrations: \(names.count) of \(names.count) pending"))
        }
        #expect(try await PostgresMigrator.migrate(settings: server.settings(), logger: quietLogger) == names)
        let report = try await PostgresCatalogCheck.run(settings: server.settings(), logger: quietLogger)
        #expect(report.applied == names && report.pending == [])
        #expect(report.description.hasSuffix("migrations: all \(names.count) applied"))
    }

    @Test func eachWayOfBeingWrongIsItsOwnProblem() async throws {
        let server = try PostgresServer()
        defer { server.remove() }
        let tcp = "127.0.0.1:\(server.port)"
        try await expectProblem(server.settings(password: "wrong"), .authenticationFailed(user: "utensil", server: tcp))
        try await expectProblem(server.settings(user: "nobody"), .authenticationFailed(user: "nobody", server: tcp))
        try await expectProblem(server.settings(password: .some(nil)), .passwordMissing(user: "utensil", server: tcp))
        try await expectProblem(server.settings(database: "elsewhere"), .databaseMissing(database: "elsewhere", server: tcp))

        let closedPort = try LoopbackSocket.freePort()
        var unreachable = server.settings()
        unreachable.url.port = closedPort
        try await expectProblem(unreachable, .unreachable(server: "127.0.0.1:\(closedPort)", reason: "connection refused"))
        var noSocket = server.settings(overSocket: true)
        noSocket.url.port = closedPort
        let socket = server.socketDirectory + "/.s.PGSQL.\(closedPort)"
        try await expectProblem(noSocket, .unreachable(server: "the socket \(socket)", reason: "no such file or directory"))
    }

    @Test func aRoleWithoutRightsIsToldWhatItMayNotDo() async throws {
        let server = try PostgresServer()
        defer { server.remove() }
        try server.addRole("visitor", password: "visitor-pw")
        let visitor = server.settings(user: "visitor", password: "visitor-pw")
        let advice = "as a superuser run ALTER DATABASE utensils OWNER TO visitor; ALTER SCHEMA public OWNER TO visitor; (see docs/SEVERAL-HOSTS.md)"
        // PostgreSQL 15 lets only the database's owner create in the schema public.
        try await expectProblem(visitor, .noRights(user: "visitor", database: "utensils", missing: "create tables in the schema public", grant: advice))
        do {
            _ = try await PostgresMigrator.migrate(settings: visitor, logger: quietLogger)
            Issue.record("the visitor migrated")
        } catch {
            #expect(error == .noRights(user: "visitor", database: "utensils", missing: "change the catalog's schema", grant: advice))
        }
        // Once the owner migrated, the visitor may still not read or write the tables.
        _ = try await PostgresMigrator.migrate(settings: server.settings(), logger: quietLogger)
        try await expectProblem(visitor, .noRights(user: "visitor", database: "utensils", missing: "read and write the table utensild_migrations", grant: advice))
        try server.superuserSQL("GRANT SELECT ON utensild_migrations TO visitor", database: "utensils")
        try await expectProblem(visitor, .noRights(user: "visitor", database: "utensils", missing: "read and write the table utensils", grant: advice))
        try server.superuserSQL("GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO visitor", database: "utensils")
        #expect(try await PostgresCatalogCheck.run(settings: visitor, logger: quietLogger).pending == [])
    }

    @Test func aStoppedServerIsUnreachableAndAStartedOneAnswersAgain() async throws {
        let server = try PostgresServer()
        defer { server.remove() }
        try server.stop(.immediate)
        try await expectProblem(server.settings(), .unreachable(server: "127.0.0.1:\(server.port)", reason: "connection refused"))
        try server.start()
        #expect(try await PostgresCatalogCheck.run(settings: server.settings(), logger: quietLogger).pending.count == PostgresSchema.migrations.count)
    }

    @Test func everyProblemIsOneSentenceWithoutThePassword() {
        let problems: [PostgresCatalogProblem] = [
            .unreachable(server: "db:5432", reason: "connection refused"), .authenticationFailed(user: "u", server: "db:5432"),
            .passwordMissing(user: "u", server: "db:5432"), .authenticationUnsupported(user: "u", server: "db:5432"),
            .databaseMissing(database: "d", server: "db:5432"), .noRights(user: "u", database: "d", missing: "x", grant: "y"),
            .serverTooOld(version: "12.4", server: "db:5432"), .extensionMissing(name: "pg_trgm", server: "db:5432"),
            .schemaNewer(migrations: ["v9"], database: "d", version: "0.1.0", newerVersion: nil),
            .schemaNewer(migrations: ["v9"], database: "d", version: "0.1.0", newerVersion: "0.2.0"),
            .unavailable(server: "db:5432", sqlState: "57P03"), .unexpected(server: "db:5432", detail: "SQLSTATE XX000"),
            .noHostRule(user: "u", database: "d", server: "db:5432", client: "10.0.0.7", overSocket: false, tls: true),
            .noHostRule(user: "u", database: "d", server: "db:5432", client: nil, overSocket: true, tls: false),
            .tlsRequired(user: "u", database: "d", server: "db:5432"), .peerAuthenticationFailed(user: "u", server: "db:5432"),
            .authenticationRefused(user: "u", server: "db:5432"), .roleMissing(user: "u", server: "db:5432"),
            .tlsNotOffered(server: "db:5432", sslMode: "require"),
            .certificateRejected(server: "db:5432", rootCertificate: "/ca.crt", reason: "r"),
            .rootCertificateUnusable(path: "/ca.crt", reason: "r"),
        ]
        for problem in problems {
            #expect(!problem.description.contains("\n"))
            #expect(problem.description.contains(";"), "no advice: \(problem)")
        }
        #expect(PostgresCatalogSettings(url: .init(user: "u", server: .tcp(host: "db"), database: "d"), password: "s3cret").description
                == "role u, database d at db:5432")
    }

    private func expectProblem(
        _ settings: PostgresCatalogSettings, _ expected: PostgresCatalogProblem, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        do {
            let report = try await PostgresCatalogCheck.run(settings: settings, logger: quietLogger)
            Issue.record("expected \(expected), connected: \(report)", sourceLocation: sourceLocation)
        } catch {
            #expect(error == expected, sourceLocation: sourceLocation)
        }
    }
}
