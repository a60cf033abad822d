import Foundation
import Testing
import UtensilCatalogPostgres
import UtensilTestSupport

/// The server's refusals at login, each against a real server with a pg_hba.conf the test
/// writes: no line for this host, role and database; peer authentication over the socket; no
/// such role; a wrong password; no such database — each its own problem and sentence.
@Suite(.tags(.spawnsProcesses)) struct PostgresRefusalTests {
    private func problem(_ settings: PostgresCatalogSettings) async -> PostgresCatalogProblem? {
        do {
            _ = try await PostgresCatalogCheck.run(settings: settings, logger: quietLogger)
            return nil
        } catch {
            return error
        }
    }

    @Test func noPgHbaLineIsSaidWithTheLineToAdd() async throws {
        let server = try PostgresServer()
        defer { server.remove() }
        try server.writeHostRules("""
            local all someone_else scram-sha-256
            host all someone_else 127.0.0.1/32 scram-sha-256
            """)
        let tcp = "127.0.0.1:\(server.port)"
        let overTCP = await problem(server.settings())
        #expect(overTCP == .noHostRule(
            user: "utensil", database: "utensils", server: tcp, client: "127.0.0.1", overSocket: false, tls: false))
        let sentence = overTCP?.description ?? ""
        #expect(sentence.contains("has no pg_hba.conf line that lets role utensil into database utensils from 127.0.0.1"), "\(sentence)")
        #expect(sentence.contains("add \"host utensils utensil 127.0.0.1/32 scram-sha-256\" to pg_hba.conf above the distribution's \"local all all peer\""), "\(sentence)")
        #expect(!sentence.contains("password"), "\(sentence)")

        let overSocket = await problem(server.settings(overSocket: true))
        #expect(overSocket == .noHostRule(
            user: "utensil", database: "utensils", server: "the socket \(server.socketDirectory)/.s.PGSQL.\(server.port)",
            client: nil, overSocket: true, tls: false))
        #expect(overSocket?.description.contains("add \"local utensils utensil scram-sha-256\"") == true)

        // The line it says to add lets the role in.
        try server.writeHostRules("host utensils utensil 127.0.0.1/32 scram-sha-256")
        #expect(await problem(server.settings()) == nil)
    }

    @Test func peerAuthenticationOverTheSocketIsSaidToBePeer() async throws {
        let server = try PostgresServer()
        defer { server.remove() }
        // As Debian's pg_hba.conf: peer for every role over the socket. The tests' Unix user is
        // not called utensil, so the server refuses it.
        try server.writeHostRules("local all all peer")
        let refused = await problem(server.settings(overSocket: true))
        #expect(refused == .peerAuthenticationFailed(
            user: "utensil", server: "the socket \(server.socketDirectory)/.s.PGSQL.\(server.port)"))
        #expect(refused?.description.contains("by peer authentication: the Unix user utensild runs as is not called utensil") == true)
        #expect(refused?.description.contains("above the distribution's \"local all all peer\" line") == true)
    }

    @Test func aMissingRoleAndARoleThatMayNotLogInAreSaid() async throws {
        let server = try PostgresServer()
        defer { server.remove() }
        try server.superuserSQL("CREATE ROLE sleeper NOLOGIN")
        // Trust over loopback: the server then says that the role is missing (with a password
        // it answers as for a wrong password, and says why in its log only).
        try server.writeHostRules("host all all 127.0.0.1/32 trust")
        let tcp = "127.0.0.1:\(server.port)"
        #expect(await problem(server.settings(user: "ghost")) == .roleMissing(user: "ghost", server: tcp))
        #expect(await problem(server.settings(user: "sleeper")) == .roleMissing(user: "sleeper", server: tcp))
        #expect(PostgresCatalogProblem.roleMissing(user: "ghost", server: tcp).description
                .contains("has no role ghost that may log in; create it with CREATE ROLE ghost LOGIN"))
        try server.writeHostRules("host all all 127.0.0.1/32 scram-sha-256")
        #expect(await problem(server.settings(password: "wrong")) == .authenticationFailed(user: "utensil", server: tcp))
        #expect(await problem(server.settings(database: "elsewhere")) == .databaseMissing(database: "elsewhere", server: tcp))
    }

    @Test func aRoleWithoutConnectOnTheDatabaseIsToldTheGrant() async throws {
        let server = try PostgresServer()
        defer { server.remove() }
        try server.addRole("visitor", password: "visitor-pw")
        try server.superuserSQL("REVOKE CONNECT ON DATABASE utensils FROM PUBLIC")
        let refused = await problem(server.settings(user: "visitor", password: "visitor-pw"))
        #expect(refused == .noRights(
            user: "visitor", database: "utensils", missing: "connect",
            grant: "as a superuser run GRANT CONNECT ON DATABASE utensils TO visitor;"))
    }

    @Test func theDaemonSaysWhichAndExits78() throws {
        let server = try PostgresServer()
        defer { server.remove() }
        try server.writeHostRules("host all someone_else 127.0.0.1/32 scram-sha-256")
        let world = try TestWorld()
        defer { world.remove() }
        let extra = ["--catalog", server.tcpURL, "--catalog-password-file", server.passwordFile, "--host-name", "kitchen-1"]
        let check = try UtensildProcess.run(UtensildProcess.arguments(for: world, extra: ["--check-config"] + extra))
        let daemon = try daemonRefusal(world, extra: extra)
        for (status, log) in [(check.status, check.errors), (daemon.status, daemon.log)] {
            #expect(status == 78, "\(log)")
            #expect(log.contains("has no pg_hba.conf line that lets role utensil into database utensils from 127.0.0.1"), "\(log)")
            #expect(!log.contains("refused the password"), "\(log)")
        }
    }
}
