import Foundation
import Testing
import UtensilTestSupport

/// The hosts of the several-hosts tests (``NetworkLab``): each in a network namespace of its
/// own, reaching the test's PostgreSQL server only over its virtual link.
@Suite(.tags(.spawnsProcesses)) struct NetworkLabTests {
    @Test func eachHostReachesPostgreSQLOverItsLinkAndNotOverItsOwnLoopback() throws {
        let lab = try NetworkLab(hosts: 2)
        defer { lab.remove() }
        let server = try PostgresServer(reachableFrom: lab)
        defer { server.remove() }
        for host in lab.hosts {
            let over = try psql(in: host, of: lab, to: host.gateway, server: server, "SELECT current_user || ' ' || host(inet_client_addr())")
            #expect(over.status == 0, "\(host) over its link: \(over.output)")
            #expect(over.output.trimmingCharacters(in: .whitespacesAndNewlines) == "utensil \(host.address)")
            // 127.0.0.1 in the host's namespace is the host's own loopback: no server there.
            let loopback = try psql(in: host, of: lab, to: "127.0.0.1", server: server, "SELECT 1")
            #expect(loopback.status != 0, "\(host) reached the server over its own loopback: \(loopback.output)")
            #expect(loopback.output.contains("Connection refused"), "\(loopback.output)")
        }
    }

    @Test func removingTheLabDeletesItsNamespaces() throws {
        let lab = try NetworkLab(hosts: 2)
        let names = lab.hosts.map(\.namespace)
        #expect(try namespaces().isSuperset(of: names))
        lab.remove()
        #expect(try namespaces().isDisjoint(with: names))
        lab.remove()
    }

    private func psql(
        in host: NetworkLab.Host, of lab: NetworkLab, to address: String, server: PostgresServer, _ sql: String
    ) throws -> (status: Int32, output: String) {
        try lab.run(
            in: host,
            [PostgresServer.binaries + "/psql", "-X", "-A", "-t", "-h", address, "-p", String(server.port),
             "-U", server.role, "-d", server.database, "-c", sql],
            environment: ["PGPASSWORD": server.password, "PGCONNECT_TIMEOUT": "10", "LC_ALL": "C.UTF-8"])
    }

    private func namespaces() throws -> Set<String> {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: NetworkLab.ip)
        process.arguments = ["netns", "list"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Set(String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) })
    }
}
