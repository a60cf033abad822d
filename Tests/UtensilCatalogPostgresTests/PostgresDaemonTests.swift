import Foundation
import Testing
import UtensilTestSupport

/// The real utensild with its catalog in a real PostgreSQL 15: one host, then two hosts in
/// network namespaces of their own (``NetworkLab``) sharing one state folder and one catalog.
@Suite(.tags(.spawnsProcesses)) struct PostgresDaemonTests {
    @Test func aDaemonKeepsItsCatalogInPostgreSQL() throws {
        let server = try PostgresServer()
        defer { server.remove() }
        let world = try TestWorld()
        defer { world.remove() }
        let daemon = try RunningDaemon(
            world: world, extra: ["--catalog", server.tcpURL, "--catalog-password-file", server.passwordFile, "--host-name", "kitchen-1"])
        let photo = try TestImages.make([TestImages.jpeg(world.root.path + "/spoon.jpg", seed: 3)])[0]
        try world.drop("Wooden Spoon.jpg", photo)
        try Self.waitForRows(server, 1, daemon.log)

        #expect(try server.superuserSQL("SELECT name || '|' || host FROM utensils", database: server.database) == "Wooden Spoon|kitchen-1")
        #expect(!FileManager.default.fileExists(atPath: world.state.appendingPathComponent("utensils.sqlite").path), "\(daemon.log)")
        let list = try Utensilctl.run(["list", "--json"], socket: Self.socket(world))
        #expect(list.status == 0, "\(list.errors)")
        #expect(list.output.contains("\"Wooden Spoon\""), "\(list.output)")
        #expect(FileManager.default.fileExists(atPath: world.state.appendingPathComponent("utensild-kitchen-1.lock").path))
        #expect(try daemon.terminate() == 0, "\(daemon.log)")
    }

    /// PostgreSQL stopped under a running daemon: drops wait (never rejected), `status` still
    /// answers, a command that needs the catalog fails clearly; once the server is back the
    /// waiting drops become utensils by themselves and `check` finds nothing wrong.
    @Test func dropsWaitWhilePostgreSQLIsDownAndResumeWhenItReturns() throws {
        let server = try PostgresServer()
        defer { server.remove() }
        let world = try TestWorld()
        defer { world.remove() }
        let daemon = try RunningDaemon(
            world: world, extra: ["--catalog", server.tcpURL, "--catalog-password-file", server.passwordFile, "--host-name", "kitchen-1"])
        let socket = Self.socket(world)
        let photos = try TestImages.make((0..<3).map { TestImages.jpeg(world.root.path + "/photo-\($0).jpg", seed: 40 + $0) })
        try world.drop("Ladle.jpg", photos[0])
        try Self.waitForRows(server, 1, daemon.log)

        try server.stop(.fast)
        try world.drop("Whisk.jpg", photos[1])
        try world.drop("Tongs.jpg", photos[2])
        var status = ""
        try Poll.until(seconds: 180, "status says the catalog is unavailable", detail: { "\(status)\n\(daemon.log)" }) {
            guard let run = try? Utensilctl.run(["status"], socket: socket, timeout: 60) else { return false }
            status = run.output + run.errors
            return run.status == 0 && status.contains("the catalog is unavailable since")
        }
        #expect(world.files(in: world.rejected).isEmpty, "\(daemon.log)")
        let list = try Utensilctl.run(["list"], socket: socket, timeout: 90)
        #expect(list.status != 0, "\(list.output)")
        #expect(list.errors.contains("unavailable"), "\(list.errors)")

        try server.start()
        try Self.waitForRows(server, 3, daemon.log)
        #expect(world.files(in: world.rejected).isEmpty, "\(daemon.log)")
        try Poll.until(seconds: 60, "the inbox empty", detail: { daemon.log }) { world.files(in: world.inbox).isEmpty }
        // The journal says once that the catalog is unavailable, and once that it is back.
        let log = daemon.log
        #expect(log.components(separatedBy: "The catalog is unavailable").count == 2, "\(log)")
        #expect(log.components(separatedBy: "The catalog answers again").count == 2, "\(log)")
        // The pool's own line for each failed connection attempt stays at debug.
        #expect(log.contains("debug Connection creation failed"), "\(log)")
        #expect(!log.contains("info Connection creation failed"), "\(log)")
        let check = try Utensilctl.run(["check", "--json"], socket: socket, timeout: 120)
        #expect(check.status == 0, "\(check.output)\n\(check.errors)")
        #expect(check.json?["ok"] as? Bool == true, "\(check.output)")
        #expect(try daemon.terminate() == 0, "\(daemon.log)")
    }

    /// A daemon started while PostgreSQL is down waits for it (saying so once) instead of
    /// exiting, and starts — READY=1, the drop made while it waited ingested — once it is up.
    @Test func aDaemonStartedWhilePostgreSQLIsDownWaitsForIt() throws {
        let server = try PostgresServer()
        defer { server.remove() }
        try server.stop(.fast)
        let world = try TestWorld()
        defer { world.remove() }
        let photo = try TestImages.make([TestImages.jpeg(world.root.path + "/spoon.jpg", seed: 50)])[0]
        try world.drop("Wooden Spoon.jpg", photo)
        let daemon = try RunningDaemon(
            world: world, extra: ["--catalog", server.tcpURL, "--catalog-password-file", server.passwordFile, "--host-name", "kitchen-1"],
            waitForReady: false)
        try daemon.waitUntil(seconds: 60, "the daemon waiting for PostgreSQL") {
            daemon.log.contains("waiting for it, trying again with back-off")
        }
        #expect(daemon.process.isRunning, "\(daemon.log)")
        try server.start()
        _ = try daemon.notifications.wait(for: "READY=1", seconds: 120)
        try Self.waitForRows(server, 1, daemon.log)
        #expect(daemon.log.components(separatedBy: "waiting for it, trying again with back-off").count == 2, "\(daemon.log)")
        #expect(daemon.log.contains("The PostgreSQL catalog answers"), "\(daemon.log)")
        #expect(try daemon.terminate() == 0, "\(daemon.log)")
    }

    @Test func twoHostsInTheirOwnNetworksShareOneCatalogAndOneStateFolder() throws {
        let lab = try NetworkLab(hosts: 2)
        defer { lab.remove() }
        let server = try PostgresServer(reachableFrom: lab)
        defer { server.remove() }
        let worlds = try lab.hosts.map { _ in try TestWorld() }
        defer { worlds.forEach { $0.remove() } }
        let shared = worlds[0].state.path
        let daemons = try zip(lab.hosts, worlds).enumerated().map { index, pair in
            let (host, world) = pair
            return try RunningDaemon(
                world: world,
                extra: [
                    "--catalog", "postgresql://\(server.role)@\(host.gateway):\(server.port)/\(server.database)",
                    "--catalog-password-file", server.passwordFile, "--host-name", "kitchen-\(index + 1)",
                    "--state-dir", shared,
                ],
                launcher: lab.launcher(for: host))
        }
        let photos = try TestImages.make((0..<4).map { TestImages.jpeg(worlds[0].root.path + "/photo-\($0).jpg", seed: 20 + $0) })

        // The same name on both hosts at once: one utensil, one duplicate-name.
        try worlds[0].drop("Ladle.jpg", photos[0])
        try worlds[1].drop("Ladle.jpg", photos[1])
        // Different names on each host: one utensil each.
        try worlds[0].drop("Whisk.jpg", photos[2])
        try worlds[1].drop("Tongs.jpg", photos[3])
        try Self.waitForRows(server, 3, daemons.map(\.log).joined(separator: "\n"))
        try Poll.until(seconds: 60, "the second Ladle rejected", detail: { daemons.map(\.log).joined(separator: "\n") }) {
            worlds.contains { FileManager.default.fileExists(atPath: $0.rejected.appendingPathComponent("Ladle.jpg").path) }
        }
        let rejectedWorld = try #require(worlds.first { FileManager.default.fileExists(atPath: $0.rejected.appendingPathComponent("Ladle.jpg").path) })
        #expect(try rejectedWorld.sidecar(for: "Ladle.jpg")["reason"] as? String == "duplicate-name")

        let rows = try server.superuserSQL("SELECT string_agg(name || '@' || host, ',' ORDER BY name) FROM utensils", database: server.database)
        #expect(rows.split(separator: ",").map { String($0.split(separator: "@")[0]) } == ["Ladle", "Tongs", "Whisk"], "\(rows)")
        #expect(rows.contains("Whisk@kitchen-1") && rows.contains("Tongs@kitchen-2"), "\(rows)")
        // Every host lists the same utensils, and every file is in the one state folder.
        let lists = try worlds.map { world in
            let list = try Utensilctl.run(["list", "--json"], socket: Self.socket(world))
            #expect(list.status == 0, "\(list.errors)")
            let utensils = try #require(list.json?["utensils"] as? [[String: Any]], "\(list.output)")
            return utensils.compactMap { "\($0["id"] ?? "")|\($0["name"] ?? "")|\($0["host"] ?? "")" }.sorted()
        }
        #expect(lists[0] == lists[1])
        #expect(lists[0].count == 3)
        #expect(worlds[0].files(in: worlds[0].originals).count == 3)
        #expect(worlds[0].files(in: worlds[0].thumbnails).count == 3)
        // Each host staged in its own folder and holds its own lock.
        for name in ["kitchen-1", "kitchen-2"] {
            #expect(FileManager.default.fileExists(atPath: shared + "/staging/" + name))
            #expect(FileManager.default.fileExists(atPath: shared + "/utensild-\(name).lock"))
        }
        // Each host sees the other in `hosts`.
        let hosts = try Utensilctl.run(["hosts", "--json"], socket: Self.socket(worlds[1]))
        #expect(hosts.status == 0, "\(hosts.errors)")
        #expect(hosts.output.contains("\"kitchen-1\"") && hosts.output.contains("\"kitchen-2\""), "\(hosts.output)")
        for daemon in daemons { #expect(try daemon.terminate() == 0, "\(daemon.log)") }
    }

    private static func socket(_ world: TestWorld) -> String {
        world.root.appendingPathComponent("control.sock").path
    }

    private static func waitForRows(_ server: PostgresServer, _ count: Int, _ log: @autoclosure () -> String) throws {
        var seen = ""
        try Poll.until(seconds: 180, "\(count) utensils in PostgreSQL", detail: { "catalog has \(seen)\n\(log())" }) {
            seen = (try? server.superuserSQL("SELECT count(*) FROM utensils", database: server.database)) ?? "?"
            return seen == String(count)
        }
    }
}
