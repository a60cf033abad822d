import Foundation
import Testing
import UtensilTestSupport

/// While PostgreSQL is down, what monitoring asks is answered from what the daemon knows, in
/// about 1.5 s, not after the pool's 10 s connect time-out (Prometheus's scrape time-out): the
/// health checks, `/metrics` and `status`.
@Suite("health during a PostgreSQL outage", .serialized, .tags(.spawnsProcesses))
struct PostgresHealthTests {
    /// Well below the 10 s a request for a connection waits while the server is down.
    static let promptly = 4.0

    static func timed<T>(_ body: () throws -> T) rethrows -> (T, seconds: Double) {
        let started = Date()
        let value = try body()
        return (value, Date().timeIntervalSince(started))
    }

    @Test func healthMetricsAndStatusAnswerPromptlyWhileTheCatalogIsDown() throws {
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
            ])
        let web = WebClient(port: port)
        let socket = world.root.appendingPathComponent("control.sock").path
        try daemon.waitUntil(seconds: 30, "the gallery to listen") { (try? web.get("/healthz").status) == 200 }
        let ready = try web.get("/readyz")
        #expect(ready.status == 200, "\(ready.text)")
        #expect(ready.text.contains(#""catalog":"ok""#) && ready.text.contains(#""storage":"ok""#), "\(ready.text)")

        #expect(try web.get("/metrics").text.contains(#"utensild_catalog_up{host="kitchen-1"} 1"#))

        try server.stop(.fast)
        for _ in 0..<3 {
            let (health, healthSeconds) = try Self.timed { try web.get("/healthz") }
            #expect(health.status == 200 && healthSeconds < Self.promptly, "healthz: \(health.status) in \(healthSeconds) s")
            let (readiness, readySeconds) = try Self.timed { try web.get("/readyz") }
            #expect(readiness.status == 503, "\(readiness.text)")
            #expect(readiness.text.contains(#""storage":"ok""#) && !readiness.text.contains(#""catalog":"ok""#), "\(readiness.text)")
            #expect(readySeconds < Self.promptly, "readyz took \(readySeconds) s")
            let (metrics, metricsSeconds) = try Self.timed { try web.get("/metrics") }
            #expect(metrics.status == 200 && metricsSeconds < Self.promptly, "metrics: \(metrics.status) in \(metricsSeconds) s")
            #expect(metrics.text.contains(#"utensild_catalog_up{host="kitchen-1"} 0"#), "\(metrics.text)")
            #expect(!metrics.text.contains(#"utensild_catalog_down_since_seconds{host="kitchen-1"} 0"#), "\(metrics.text)")
            let (status, statusSeconds) = try Self.timed { try Utensilctl.run(["status"], socket: socket, timeout: 30) }
            #expect(status.status == 0 && statusSeconds < Self.promptly, "status: \(status.status) in \(statusSeconds) s")
            #expect(status.output.contains("the catalog is unavailable since"), "\(status.output)")
            let (api, apiSeconds) = try Self.timed { try web.get("/api/v1/status") }
            #expect(api.status == 200 && apiSeconds < Self.promptly, "api status: \(api.status) in \(apiSeconds) s")
        }

        // status says since when, and that it has not passed.
        let during = try #require(try Utensilctl.run(["status", "--json"], socket: socket, timeout: 30).json)
        #expect(during["lastErrorAt"] is String && during["lastErrorPassed"] as? Bool == false, "\(during)")
        try server.start()
        try Poll.until(seconds: 90, "ready again", detail: { daemon.log }) { (try? web.get("/readyz").status) == 200 }
        // Back: no error that has not passed.
        let after = try #require(try Utensilctl.run(["status", "--json"], socket: socket, timeout: 30).json)
        #expect(after["lastErrorPassed"] == nil || after["lastErrorPassed"] as? Bool == true, "\(after)")
        #expect(try daemon.terminate() == 0, "\(daemon.log)")
    }
}
