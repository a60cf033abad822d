import Foundation
import Testing
import UtensilTestSupport

/// The real utensild on a real PostgreSQL 15 that stops and starts again: the drops that
/// waited for it are retried as soon as it answers, not when their back-off runs out.
///
/// The daemon runs with every retry back-off stretched to ten minutes (the debug build's
/// `UTENSIL_FAULT_RETRY_AFTER`): a drop ingested within two minutes of the server's return
/// was woken by that return, not by its back-off.
@Suite(.tags(.spawnsProcesses)) struct PostgresReturnDaemonTests {
    static let retryAfterSeconds = 600
    /// Far below ``retryAfterSeconds``, far above what the return takes (about 1 s here).
    static let resumedWithinSeconds: Double = 120

    @Test func dropsWaitingForPostgreSQLAreRetriedAsSoonAsItAnswersAgain() throws {
        let server = try PostgresServer()
        defer { server.remove() }
        let world = try TestWorld()
        defer { world.remove() }
        let daemon = try RunningDaemon(
            world: world,
            extra: ["--catalog", server.tcpURL, "--catalog-password-file", server.passwordFile, "--host-name", "kitchen-1"],
            environment: ["UTENSIL_FAULT_RETRY_AFTER": String(Self.retryAfterSeconds)])
        let socket = world.root.appendingPathComponent("control.sock").path
        let photos = try TestImages.make((0..<3).map { TestImages.jpeg(world.root.path + "/photo-\($0).jpg", seed: 70 + $0) })
        try world.drop("Ladle.jpg", photos[0])
        try Self.waitForRows(server, 1, seconds: 180, daemon.log)

        try server.stop(.fast)
        try world.drop("Whisk.jpg", photos[1])
        try world.drop("Tongs.jpg", photos[2])
        // Both have been tried and wait for a retry (ten minutes away); `status` says since when.
        try daemon.notifications.wait(for: { $0.contains("2 waiting for a retry") }, seconds: 180)
        var status = ""
        try Poll.until(seconds: 120, "status says the catalog is unavailable", detail: { "\(status)\n\(daemon.log)" }) {
            guard let run = try? Utensilctl.run(["status"], socket: socket, timeout: 60) else { return false }
            status = run.output + run.errors
            return run.status == 0 && status.contains("the catalog is unavailable since")
        }
        #expect(world.files(in: world.inbox).sorted() == ["Tongs.jpg", "Whisk.jpg"], "\(daemon.log)")

        try server.start()
        try Self.waitForRows(server, 3, seconds: Self.resumedWithinSeconds, daemon.log)
        try Poll.until(seconds: 30, "the inbox empty", detail: { daemon.log }) { world.files(in: world.inbox).isEmpty }
        #expect(world.files(in: world.rejected).isEmpty, "\(daemon.log)")
        let log = daemon.log
        #expect(log.components(separatedBy: "The catalog is unavailable").count == 2, "\(log)")
        #expect(log.components(separatedBy: "The catalog answers again").count == 2, "\(log)")
        let check = try Utensilctl.run(["check", "--json"], socket: socket, timeout: 120)
        #expect(check.json?["ok"] as? Bool == true, "\(check.output)\n\(check.errors)")
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
}
