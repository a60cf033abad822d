import Foundation
import Testing
import UtensilCatalogPostgres
import UtensilTestSupport

/// `utensild --check-config` (the real binary) with a PostgreSQL `catalog`, against a real
/// server: it says that it connected, or exits 78 with one sentence saying what is wrong, and
/// never shows the password.
@Suite(.tags(.spawnsProcesses)) struct PostgresCheckConfigTests {
    private func checkConfig(
        _ world: TestWorld, catalog: String, passwordFile: String?, environment: [String: String] = [:]
    ) throws -> UtensildProcess.Result {
        let extra = ["--check-config", "--catalog", catalog] + (passwordFile.map { ["--catalog-password-file", $0] } ?? [])
        return try UtensildProcess.run(UtensildProcess.arguments(for: world, extra: extra), environment: environment)
    }

    @Test func aGoodSetUpSaysItConnectedOverTCPAndTheSocket() throws {
        let server = try PostgresServer()
        defer { server.remove() }
        let world = try TestWorld()
        defer { world.remove() }
        for url in [server.tcpURL, server.socketURL] {
            let result = try checkConfig(world, catalog: url, passwordFile: server.passwordFile)
            #expect(result.status == 0, "\(url): \(result.errors)")
            #expect(result.output.contains("\ncatalog = \"\(url)\"\n"), "\(result.output)")
            #expect(result.output.contains("# catalog: connected to PostgreSQL 15."), "\(result.output)")
            let migrations = PostgresSchema.migrations.map(\.name)
            #expect(result.output.contains(
                "migrations: \(migrations.count) of \(migrations.count) pending (\(migrations.joined(separator: ", ")))"),
                "\(result.output)")
            #expect(result.output.contains("# catalog: the password from \"\(server.passwordFile)\" (catalog_password_file)"))
            #expect(!result.output.contains("refuses"), "\(result.output)")
            #expect(!(result.output + result.errors).contains(server.password))
        }
    }

    @Test func theSystemdCredentialIsReadWhenNoFileIsNamed() throws {
        let server = try PostgresServer()
        defer { server.remove() }
        let world = try TestWorld()
        defer { world.remove() }
        let credentials = world.root.appendingPathComponent("credentials")
        try FileManager.default.createDirectory(at: credentials, withIntermediateDirectories: true)
        try Data((server.password + "\n").utf8).write(to: credentials.appendingPathComponent("catalog-password"))
        let result = try checkConfig(world, catalog: server.tcpURL, passwordFile: nil, environment: ["CREDENTIALS_DIRECTORY": credentials.path])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("# catalog: the password from the systemd credential"))
        let without = try checkConfig(world, catalog: server.tcpURL, passwordFile: nil)
        #expect(without.status == 78)
        #expect(without.errors.contains("asks for the password of role utensil, and none is configured"), "\(without.errors)")
    }

    @Test func eachProblemIsOneSentenceAndExit78() throws {
        let server = try PostgresServer()
        defer { server.remove() }
        try server.addRole("visitor", password: "visitor-pw")
        let world = try TestWorld()
        defer { world.remove() }
        let wrong = world.root.appendingPathComponent("wrong-password").path
        try Data("not-the-password\n".utf8).write(to: URL(fileURLWithPath: wrong))
        let visitorFile = world.root.appendingPathComponent("visitor-password").path
        try Data("visitor-pw\n".utf8).write(to: URL(fileURLWithPath: visitorFile))
        let closedPort = try LoopbackSocket.freePort()
        let cases: [(String, String, String)] = [
            (server.tcpURL, wrong, "refused the password of role utensil"),
            ("postgresql://utensil@127.0.0.1:\(server.port)/elsewhere", server.passwordFile, "has no database elsewhere"),
            ("postgresql://utensil@127.0.0.1:\(closedPort)/utensils", server.passwordFile, "cannot reach PostgreSQL at 127.0.0.1:\(closedPort) (connection refused)"),
            ("postgresql://visitor@127.0.0.1:\(server.port)/utensils", visitorFile, "role visitor may not create tables in the schema public in database utensils"),
        ]
        for (url, passwordFile, sentence) in cases {
            let result = try checkConfig(world, catalog: url, passwordFile: passwordFile)
            #expect(result.status == 78, "\(url): \(result.output)")
            #expect(result.output.isEmpty)
            #expect(result.errors.hasPrefix("utensild: catalog: "), "\(result.errors)")
            #expect(result.errors.contains(sentence), "\(url): \(result.errors)")
            #expect(result.errors.split(separator: "\n").count == 1, "\(result.errors)")
            #expect(!result.errors.contains(server.password) && !result.errors.contains("visitor-pw"))
        }
    }

    @Test func anUnreadablePasswordFileIsNamed() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let empty = world.root.appendingPathComponent("empty-password").path
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        let result = try checkConfig(world, catalog: "postgresql://utensil@127.0.0.1:1/utensils", passwordFile: empty)
        #expect(result.status == 78)
        #expect(result.errors.contains("the password from \"\(empty)\" (catalog_password_file) is empty"), "\(result.errors)")
    }
}
