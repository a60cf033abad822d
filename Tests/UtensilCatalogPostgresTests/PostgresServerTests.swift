import Foundation
import Testing
import UtensilTestSupport

/// The test server itself (``PostgresServer``): the role logs in with its password over both
/// ways in, a wrong password is refused, and a stopped server comes back with its data.
@Suite(.tags(.spawnsProcesses)) struct PostgresServerTests {
    @Test func theRoleLogsInWithItsPasswordOverTheSocketAndLoopback() throws {
        let server = try PostgresServer()
        defer { server.remove() }
        for host in [server.socketDirectory, "127.0.0.1"] {
            let result = try psql(server, host: host, password: server.password, "SELECT current_user || ' ' || current_database()")
            #expect(result.status == 0, "\(host): \(result.output)")
            #expect(result.output.trimmingCharacters(in: .whitespacesAndNewlines) == "utensil utensils")
        }
        let wrong = try psql(server, host: "127.0.0.1", password: "not-" + server.password, "SELECT 1")
        #expect(wrong.status != 0)
        #expect(wrong.output.contains("password authentication failed"), "\(wrong.output)")
        #expect(try String(contentsOfFile: server.passwordFile, encoding: .utf8) == server.password + "\n")
    }

    @Test func aStoppedServerStartsAgainWithItsData() throws {
        let server = try PostgresServer()
        defer { server.remove() }
        try server.superuserSQL("CREATE TABLE kept(x int); INSERT INTO kept VALUES (42)", database: server.database)
        try server.stop(.immediate)
        #expect(!server.isRunning)
        let down = try psql(server, host: "127.0.0.1", password: server.password, "SELECT 1")
        #expect(down.status != 0)
        try server.start()
        #expect(try server.superuserSQL("SELECT x FROM kept", database: server.database) == "42")
        try server.stop(.fast)
        try server.start()
        #expect(try server.superuserSQL("SELECT x FROM kept", database: server.database) == "42")
    }

    @Test func removingStopsTheServerAndDeletesItsFolder() throws {
        let server = try PostgresServer()
        let folder = server.folder.path
        let port = server.port
        server.remove()
        #expect(!FileManager.default.fileExists(atPath: folder))
        #expect(throws: (any Error).self) { try LoopbackSocket.connected(port: port) }
        server.remove()
    }

    /// `psql` as the test role with `password`, from the tests' own user.
    private func psql(_ server: PostgresServer, host: String, password: String, _ sql: String) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: PostgresServer.binaries + "/psql")
        process.arguments = ["-X", "-A", "-t", "-h", host, "-p", String(server.port), "-U", server.role, "-d", server.database, "-c", sql]
        process.environment = ["PGPASSWORD": password, "PGCONNECT_TIMEOUT": "10", "LC_ALL": "C.UTF-8"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
