import Foundation
import Testing
import UtensilTestSupport

/// The real utensild on a real PostgreSQL 15 that stays stopped for ``outageSeconds``: long
/// enough for postgres-nio's pool to back off its connection attempts by about ten seconds
/// and to trip its circuit breaker. The drop that waited is ingested within
/// ``resumedWithinSeconds`` of the server's return all the same, and `GET /metrics` shows the
/// pool of connections replaced, every series with HELP and TYPE (`promtool check metrics`).
@Suite(.tags(.spawnsProcesses)) struct PostgresLongOutageTests {
    static let outageSeconds: Double = 45
    /// Well above what the return takes (the probe's 1 s, a heartbeat's 1 s, one ingest), well
    /// below the pool's own back-off after such an outage (up to 11 s, up to a minute later on).
    static let resumedWithinSeconds: Double = 8

    @Test func aDropIsIngestedWithinSecondsOfTheCatalogsReturnAfterALongOutage() throws {
        let server = try PostgresServer()
        defer { server.remove() }
        let world = try TestWorld()
        defer { world.remove() }
        let port = try LoopbackSocket.freePort()
        let daemon = try RunningDaemon(
            world: world,
            extra: [
                "--catalog", server.tcpURL, "--catalog-password-file", server.passwordFile, "--host-name", "kitchen-1",
                "--web-listen", "127.0.0.1:\(port)",
            ],
            // Every retry back-off ten minutes away: only the catalog's return can wake the drop.
            environment: ["UTENSIL_FAULT_RETRY_AFTER": "600"])
        let photos = try TestImages.make((0..<2).map { TestImages.jpeg(world.root.path + "/photo-\($0).jpg", seed: 90 + $0) })
        try world.drop("Ladle.jpg", photos[0])
        try Self.waitForRows(server, 1, seconds: 180, daemon.log)

        try server.stop(.fast)
        let stopped = ContinuousClock.now
        try world.drop("Whisk.jpg", photos[1])
        try daemon.notifications.wait(for: { $0.contains("1 waiting for a retry") }, seconds: 120)
        var elapsed: Double { Double((ContinuousClock.now - stopped).components.seconds) }
        // The outage itself: held for its length, whatever else happens meanwhile.
        try Poll.until(seconds: Self.outageSeconds + 30, "\(Self.outageSeconds) s of outage", every: 500_000) {
            elapsed >= Self.outageSeconds
        }
        #expect(world.files(in: world.inbox) == ["Whisk.jpg"], "\(daemon.log)")

        try server.start()
        try Self.waitForRows(server, 2, seconds: Self.resumedWithinSeconds, daemon.log)
        try Poll.until(seconds: 30, "the inbox empty", detail: { daemon.log }) { world.files(in: world.inbox).isEmpty }
        let log = daemon.log
        #expect(log.components(separatedBy: "The catalog is unavailable").count == 2, "\(log)")
        #expect(log.components(separatedBy: "The catalog answers again").count == 2, "\(log)")

        let text = try WebClient(port: port).get("/metrics").text
        let series = Self.series(text)
        #expect((series["utensild_catalog_pool_renewals_total{host=\"kitchen-1\"}"] ?? 0) >= 1, "\(text)")
        #expect((series["utensild_catalog_pool_lease_failures_total{host=\"kitchen-1\"}"] ?? 0) >= 1, "\(text)")
        #expect((series["utensild_catalog_pool_leases_total{host=\"kitchen-1\"}"] ?? 0) >= 2, "\(text)")
        #expect(series["utensild_catalog_pool_connections_limit{host=\"kitchen-1\"}"] == 20, "\(text)")
        #expect(series["utensild_catalog_pool_waiting{host=\"kitchen-1\"}"] != nil, "\(text)")
        #expect(series["utensild_catalog_pool_connections_in_use{host=\"kitchen-1\"}"] != nil, "\(text)")
        #expect(series["utensild_catalog_pool_wait_seconds_total{host=\"kitchen-1\"}"] != nil, "\(text)")
        let said = try Self.promtool(text, in: world)
        #expect(said.isEmpty, "promtool check metrics:\n\(said)\nthe scrape:\n\(text)")
        #expect(try daemon.terminate() == 0, "\(daemon.log)")
    }

    private static func waitForRows(
        _ server: PostgresServer, _ count: Int, seconds: Double, _ log: @autoclosure () -> String
    ) throws {
        var seen = ""
        try Poll.until(seconds: seconds, "\(count) utensils in PostgreSQL", detail: { "catalog has \(seen)\n\(log())" }) {
            seen = (try? server.superuserSQL("SELECT count(*) FROM utensils", database: server.database)) ?? "?"
            return seen == String(count)
        }
    }

    /// `name{labels} value` lines of an exposition, by series.
    private static func series(_ text: String) -> [String: Double] {
        var result: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            result[String(line[..<space])] = value
        }
        return result
    }

    /// What `promtool check metrics` says of `text` (nothing when it passes).
    private static func promtool(_ text: String, in world: TestWorld) throws -> String {
        let promtool = "/usr/bin/promtool"
        guard FileManager.default.isExecutableFile(atPath: promtool) else {
            throw TestFailure("\(promtool) is missing: apt-get install prometheus (make unit-test installs it)")
        }
        let file = world.root.appendingPathComponent("metrics.txt")
        try Data(text.utf8).write(to: file)
        let check = Process()
        check.executableURL = URL(fileURLWithPath: promtool)
        check.arguments = ["check", "metrics"]
        check.standardInput = try FileHandle(forReadingFrom: file)
        let output = Pipe()
        check.standardOutput = output
        check.standardError = output
        try check.run()
        let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        check.waitUntilExit()
        return check.terminationStatus == 0 ? said : "exit \(check.terminationStatus): \(said)"
    }
}
