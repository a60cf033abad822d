import Foundation
import Testing
import UtensilCatalogPostgres
import UtensilTestSupport

/// The real daemon refusing to start for what no restart mends — a catalog a newer utensild
/// migrated, a `host_name` another daemon holds, a refused login — exits 78, so that the
/// unit's `RestartPreventExitStatus=78` keeps systemd from starting it again and again.
@Suite(.tags(.spawnsProcesses)) struct PostgresStartRefusalTests {
    private func daemonArguments(_ world: TestWorld, _ server: PostgresServer, host: String = "kitchen-1") -> [String] {
        UtensildProcess.arguments(
            for: world, extra: ["--catalog", server.tcpURL, "--catalog-password-file", server.passwordFile, "--host-name", host])
    }

    private func refusal(_ world: TestWorld, _ server: PostgresServer) throws -> (status: Int32, log: String) {
        try daemonRefusal(
            world, extra: ["--catalog", server.tcpURL, "--catalog-password-file", server.passwordFile, "--host-name", "kitchen-1"])
    }

    @Test func aCatalogANewerUtensildMigratedIsRefusedNamingBothVersions() async throws {
        let server = try PostgresServer()
        defer { server.remove() }
        _ = try await PostgresMigrator.migrate(settings: server.settings(), logger: quietLogger)
        try server.superuserSQL("INSERT INTO utensild_migrations (name) VALUES ('v99-future')", database: server.database)
        let world = try TestWorld()
        defer { world.remove() }
        let version = try Self.thisVersion()

        // Without a heartbeat of the newer host, the sentence names this version only.
        let anonymous = try refusal(world, server)
        #expect(anonymous.status == 78, "\(anonymous.log)")
        #expect(anonymous.log.contains(
            "the catalog in database utensils was migrated by a newer utensild (v99-future), which this utensild \(version) does not know; upgrade utensild on this host"),
            "\(anonymous.log)")

        try server.superuserSQL(
            """
            INSERT INTO hosts (name, version, started_at, last_seen, queued, ingested, rejected)
            VALUES ('kitchen-2', '99.1.0', now(), now(), 0, 0, 0), ('kitchen-3', '\(version)', now(), now(), 0, 0, 0)
            """, database: server.database)
        let named = try refusal(world, server)
        #expect(named.status == 78, "\(named.log)")
        #expect(named.log.contains(
            "was migrated by utensild 99.1.0 (v99-future), which this utensild \(version) does not know; upgrade utensild on this host to 99.1.0 or later"),
            "\(named.log)")
        // The migrator refuses too, changing nothing; so does --check-config.
        let migrations = try server.superuserSQL("SELECT count(*) FROM utensild_migrations", database: server.database)
        await #expect(throws: PostgresCatalogProblem.schemaNewer(
            migrations: ["v99-future"], database: "utensils", version: version, newerVersion: "99.1.0")) {
            try await PostgresMigrator.migrate(settings: server.settings(), logger: quietLogger)
        }
        #expect(try server.superuserSQL("SELECT count(*) FROM utensild_migrations", database: server.database) == migrations)
        let check = try UtensildProcess.run(daemonArguments(world, server) + ["--check-config"])
        #expect(check.status == 78 && check.errors.contains("was migrated by utensild 99.1.0"), "\(check.errors)")
    }

    @Test func aHostNameAnotherDaemonHoldsIsRefusedWith78() throws {
        let server = try PostgresServer()
        defer { server.remove() }
        let world = try TestWorld()
        defer { world.remove() }
        let first = try RunningDaemon(
            world: world, extra: ["--catalog", server.tcpURL, "--catalog-password-file", server.passwordFile, "--host-name", "kitchen-1"])
        var arguments = daemonArguments(world, server)
        arguments += ["--control-socket", world.root.appendingPathComponent("second.sock").path]
        let second = try UtensildProcess.run(arguments)
        #expect(second.status == 78, "\(second.errors)")
        #expect(second.errors.contains("is already using this state folder"), "\(second.errors)")
        #expect(try first.terminate() == 0, "\(first.log)")
    }

    @Test func aWrongPasswordIsRefusedWith78() throws {
        let server = try PostgresServer()
        defer { server.remove() }
        let world = try TestWorld()
        defer { world.remove() }
        let wrong = world.root.appendingPathComponent("wrong-password").path
        try Data("not-the-password\n".utf8).write(to: URL(fileURLWithPath: wrong))
        let result = try daemonRefusal(
            world, extra: ["--catalog", server.tcpURL, "--catalog-password-file", wrong, "--host-name", "kitchen-1"])
        #expect(result.status == 78, "\(result.log)")
        #expect(result.log.contains("refused the password of role utensil"), "\(result.log)")
        // `--oneshot` and `restore` say the same, with the same exit code: no retry mends it.
        let refused = ["--catalog", server.tcpURL, "--catalog-password-file", wrong, "--host-name", "kitchen-1"]
        let oneshot = try UtensildProcess.run(UtensildProcess.arguments(for: world, extra: refused + ["--oneshot"]))
        #expect(oneshot.status == 78 && oneshot.errors.contains("refused the password of role utensil"), "\(oneshot.errors)")
        let backup = world.root.appendingPathComponent("backup").path
        let restore = try UtensildProcess.run(["restore", backup] + UtensildProcess.arguments(for: world, extra: refused))
        #expect(restore.status == 78 && restore.errors.contains("refused the password of role utensil"), "\(restore.errors)")
    }

    /// `utensild --version`: the version this build says it is.
    private static func thisVersion() throws -> String {
        let result = try UtensildProcess.run(["--version"])
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
