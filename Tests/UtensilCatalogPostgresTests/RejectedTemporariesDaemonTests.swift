import Foundation
import Testing
import UtensilTestSupport

/// `rejected/` may be shared by hosts watching one inbox (a PostgreSQL catalog), so a start
/// leaves another host's young temporary there alone (its rejection may be in flight); but a
/// host's own, named after it (`.tmp-<host_name>-<UUID>`, what a `kill -9` mid-sidecar
/// leaves), its start removes at once, whatever their age.
@Suite(.tags(.spawnsProcesses)) struct RejectedTemporariesDaemonTests {
    @Test func aStartRemovesItsOwnYoungTemporariesInRejectedAndNoOtherHosts() throws {
        let server = try PostgresServer()
        defer { server.remove() }
        let world = try TestWorld()
        defer { world.remove() }
        try FileManager.default.createDirectory(at: world.rejected, withIntermediateDirectories: true)
        let own = ".tmp-kitchen-1-\(UUID().uuidString)"
        // Another host's, one whose name begins with this host's, and an older version's.
        let others = [".tmp-kitchen-2-\(UUID().uuidString)", ".tmp-kitchen-1-b-\(UUID().uuidString)", ".tmp-\(UUID().uuidString)"]
        for name in [own] + others { try Data("{\"file\":".utf8).write(to: world.rejected.appendingPathComponent(name)) }

        let daemon = try RunningDaemon(
            world: world, extra: ["--catalog", server.tcpURL, "--catalog-password-file", server.passwordFile, "--host-name", "kitchen-1"])
        #expect(!world.files(in: world.rejected).contains(own), "this host's own temporary is gone at its start: \(daemon.log)")
        #expect(Set(others).isSubset(of: Set(world.files(in: world.rejected))), "the others' young ones stay")

        // A rejection writes its sidecar through a temporary of this host's, and leaves none.
        try world.drop("Broken.jpg", Data("not a photo".utf8))
        try Poll.until(seconds: 60, "the drop rejected with its sidecar", detail: { daemon.log }) {
            Set(world.files(in: world.rejected)).isSuperset(of: ["Broken.jpg", "Broken.jpg.error.json"])
        }
        #expect(Set(world.files(in: world.rejected)) == Set(others + ["Broken.jpg", "Broken.jpg.error.json"]))
        #expect(try daemon.terminate() == 0, "\(daemon.log)")
    }
}
