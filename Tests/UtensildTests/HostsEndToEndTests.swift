import Foundation
import Testing
import UtensilCatalogSQLite
import UtensilCatalogModel
import UtensilControlProtocol
import UtensilTestSupport

/// `utensilctl hosts` through the real daemon and the real catalog: this host up with its
/// version and what it did since start, another host's stale heartbeat gone, and this host
/// marked stopped by its last beat on a graceful shutdown.
@Suite("hosts against utensild", .serialized, .tags(.spawnsProcesses))
struct HostsEndToEndTests {
    typealias Ctl = UtensilctlEndToEndTests

    /// `hosts --json`, by name.
    static func hosts(socket: String) throws -> [String: [String: Any]] {
        let run = try Ctl.ctl(["hosts", "--json"], socket: socket)
        #expect(run.status == 0, "\(run.errors)")
        let rows = (try? JSONSerialization.jsonObject(with: Data(run.output.utf8))) as? [[String: Any]] ?? []
        return Dictionary(rows.map { ($0["name"] as? String ?? "", $0) }, uniquingKeysWith: { first, _ in first })
    }

    @Test func thisHostIsUpWithItsCountsAndOtherHostsThatStoppedOrWentSilentAreGone() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let daemon = try RunningDaemon(world: world, extra: ["--host-name", "kitchen-a"])
        let socket = world.root.appendingPathComponent("control.sock").path
        let image = try TestImages.make([TestImages.jpeg(world.root.path + "/a", width: 640, height: 480, seed: 3)])
        try world.drop("Ladle.jpg", image[0])
        try world.drop("Broken.jpg", Data("junk".utf8))
        try daemon.waitForUtensils(1)
        try daemon.waitUntil("the rejection") { world.files(in: world.rejected).contains("Broken.jpg") }

        // Two other hosts sharing the catalog: one killed an hour ago (its last beat is old),
        // one that stopped gracefully a second ago.
        let catalog = try SQLiteCatalog(path: world.state.appendingPathComponent("utensils.sqlite").path)
        let now = Date()
        try catalog.beat(HostHeartbeat(
            name: "kitchen-b", version: "0.0.9\u{1B}[2J", startedAt: now - 7200, lastSeen: now - 3600, queued: 4, ingested: 12,
            rejected: 2))
        try catalog.beat(HostHeartbeat(
            name: "kitchen-c", version: UtensildVersion.current, startedAt: now - 60, lastSeen: now - 1,
            stoppedAt: now - 1, queued: 0, ingested: 0, rejected: 0))

        // `hosts` writes this host's own beat first: its counts are those of `status`.
        var hosts: [String: [String: Any]] = [:]
        try daemon.waitUntil("hosts to count the ingest and the rejection") {
            hosts = (try? Self.hosts(socket: socket)) ?? [:]
            return hosts["kitchen-a"]?["ingested"] as? Int == 1 && hosts["kitchen-a"]?["rejected"] as? Int == 1
        }
        #expect(hosts.keys.sorted() == ["kitchen-a", "kitchen-b", "kitchen-c"])
        let this = try #require(hosts["kitchen-a"])
        #expect(this["state"] as? String == "up")
        #expect(this["version"] as? String == UtensildVersion.current)
        #expect(this["schema"] as? Int == SQLiteCatalog.knownSchema)
        #expect(this["queued"] as? Int == 0)
        #expect(this.keys.contains("stoppedAt") && this["stoppedAt"] is NSNull)
        for key in ["startedAt", "lastSeen"] {
            #expect((this[key] as? String).flatMap(ControlTimestamp.date(from:)) != nil, "\(key): \(this[key] ?? "none")")
        }
        #expect(hosts["kitchen-b"]?["state"] as? String == "gone")
        #expect(hosts["kitchen-b"]?["ingested"] as? Int == 12)
        #expect(hosts["kitchen-b"].map { $0.keys.contains("schema") && $0["schema"] is NSNull } == true)
        #expect(hosts["kitchen-c"]?["state"] as? String == "gone")

        // For people: one row per host, in name order.
        let human = try Ctl.ctl(["hosts"], socket: socket)
        #expect(human.status == 0, "\(human.errors)")
        let rows = human.output.split(separator: "\n").map(String.init)
        #expect(rows.first?.hasPrefix("HOST") == true, "\(human.output)")
        #expect(rows.dropFirst().map { $0.split(separator: " ").prefix(2).joined(separator: " ") }
            == ["kitchen-a up", "kitchen-b gone", "kitchen-c gone"], "\(human.output)")
        // What another host wrote into the catalog reaches the terminal escaped.
        #expect(!human.output.contains("\u{1B}") && human.output.contains(#"0.0.9\u{1B}[2J"#), "\(human.output)")

        // A graceful stop: the last beat says so, with the final counts.
        #expect(try daemon.terminate() == 0)
        let stopped = try #require(try catalog.hosts().first { $0.name == "kitchen-a" })
        #expect(stopped.stoppedAt != nil)
        #expect(stopped.state(at: Date()) == .gone)
        #expect(stopped.ingested == 1 && stopped.rejected == 1)
    }
}
