import Foundation
import Testing
import UtensilTestSupport

/// Every host's events on every host: two daemons, each in a network namespace of its own,
/// sharing one real PostgreSQL catalog and one state folder; `events` followed on one shows
/// what the other ingested (`LISTEN/NOTIFY`), and the other's hooks do not run here; the
/// gallery's live updates show them too, and they come back after PostgreSQL restarts.
@Suite(.serialized, .tags(.spawnsProcesses)) struct PostgresLiveEventsTests {
    @Test func eventsOnOneHostShowAnIngestOnAnother() throws {
        let lab = try NetworkLab(hosts: 2)
        defer { lab.remove() }
        let server = try PostgresServer(reachableFrom: lab)
        defer { server.remove() }
        let worlds = try lab.hosts.map { _ in try TestWorld() }
        defer { worlds.forEach { $0.remove() } }
        let shared = worlds[0].state.path
        // An on_ingest hook on each host, writing the event's file name into that host's folder.
        let hooks = try worlds.map { world in
            let script = world.root.appendingPathComponent("on-ingest").path
            let marker = world.root.appendingPathComponent("hook-ran").path
            try "#!/bin/sh\ncat >> \(marker)\n".write(toFile: script, atomically: true, encoding: .utf8)
            chmod(script, 0o755)
            return marker
        }
        let daemons = try zip(lab.hosts, worlds).enumerated().map { index, pair in
            let (host, world) = pair
            return try RunningDaemon(
                world: world,
                extra: [
                    "--catalog", "postgresql://\(server.role)@\(host.gateway):\(server.port)/\(server.database)",
                    "--catalog-password-file", server.passwordFile, "--host-name", "kitchen-\(index + 1)",
                    "--state-dir", shared, "--on-ingest", world.root.appendingPathComponent("on-ingest").path,
                ],
                launcher: lab.launcher(for: host))
        }
        let logs = { daemons.map(\.log).joined(separator: "\n") }
        for daemon in daemons {
            try daemon.waitUntil("following the other hosts' changes") {
                daemon.log.contains("Following the other hosts' changes in the catalog")
            }
        }
        // Subscribed on kitchen-1 (the reply comes once nothing dropped after it can be missed).
        let follower = try RawControlClient(path: worlds[0].root.appendingPathComponent("control.sock").path)
        #expect(follower.send(#"{"v":1,"command":"events"}"# + "\n"))
        #expect(try #require(follower.readLine()).contains(#""subscribed":true"#))

        let photo = try TestImages.make([TestImages.jpeg(worlds[1].root.path + "/photo.jpg", seed: 41)])[0]
        try worlds[1].drop("Ladle.jpg", photo)
        var lines: [String] = []
        try Poll.until(seconds: 120, "kitchen-2's ingest in kitchen-1's events", detail: { "\(lines)\n\(logs())" }) {
            if let line = follower.readLine() { lines.append(line) }
            return lines.contains { $0.contains(#""kind":"ingested""#) && $0.contains("Ladle") }
        }
        let event = try #require(lines.first { $0.contains(#""kind":"ingested""#) })
        let reply = try #require(try JSONSerialization.jsonObject(with: Data(event.utf8)) as? [String: Any])
        let json = try #require(reply["event"] as? [String: Any], "\(event)")
        #expect(json["host"] as? String == "kitchen-2", "\(event)")
        #expect((json["utensil"] as? [String: Any])?["host"] as? String == "kitchen-2", "\(event)")
        #expect(json["inboxFile"] as? String == "Ladle.jpg", "\(event)")

        // The hook ran on kitchen-2 only (kitchen-1 got the event from the catalog).
        try Poll.until(seconds: 60, "kitchen-2's on_ingest", detail: logs) {
            FileManager.default.fileExists(atPath: hooks[1])
        }
        for daemon in daemons { #expect(try daemon.terminate() == 0, "\(daemon.log)") }
        #expect(!FileManager.default.fileExists(atPath: hooks[0]), "\(logs())")
    }

    /// PostgreSQL stopped and started again under a running daemon: it says once that it
    /// cannot follow the other hosts' changes and once that it follows them again, its own
    /// `events` followers stay connected, and another host's events arrive again (sent here
    /// as another host sends them, with `pg_notify`); they never run this host's hooks.
    @Test func afterAnOutageOtherHostsEventsArriveAgain() throws {
        let server = try PostgresServer()
        defer { server.remove() }
        let world = try TestWorld()
        defer { world.remove() }
        let script = world.root.appendingPathComponent("on-reject").path
        let marker = world.root.appendingPathComponent("hook-ran").path
        try "#!/bin/sh\ncat >> \(marker)\n".write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o755)
        let daemon = try RunningDaemon(
            world: world,
            extra: [
                "--catalog", server.tcpURL, "--catalog-password-file", server.passwordFile, "--host-name", "kitchen-1",
                "--on-reject", script,
            ])
        try daemon.waitUntil("following the other hosts' changes") {
            daemon.log.contains("Following the other hosts' changes in the catalog")
        }
        let follower = try RawControlClient(path: world.root.appendingPathComponent("control.sock").path)
        #expect(follower.send(#"{"v":1,"command":"events"}"# + "\n"))
        #expect(try #require(follower.readLine()).contains(#""subscribed":true"#))
        var lines: [String] = []
        try Self.notify(server, from: "kitchen-9", rejecting: "Before.jpg")
        try Self.read(follower, into: &lines, until: "Before.jpg", log: { daemon.log })

        try server.stop(.fast)
        try daemon.waitUntil(seconds: 120, "the feed lost") { daemon.log.contains("Cannot follow the other hosts' changes") }
        try server.start()
        try daemon.waitUntil(seconds: 180, "the feed back") {
            daemon.log.contains("Following the other hosts' changes again")
        }
        // A notification no utensild sent is ignored; the next is shown.
        _ = try server.superuserSQL("SELECT pg_notify('utensild_events', 'not an event')", database: server.database)
        try Self.notify(server, from: "kitchen-9", rejecting: "After.jpg")
        try Self.read(follower, into: &lines, until: "After.jpg", log: { daemon.log })
        #expect(lines.count == 2, "\(lines)")
        for line in lines { #expect(line.contains(#""host":"kitchen-9""#), "\(line)") }

        let log = daemon.log
        #expect(log.components(separatedBy: "Cannot follow the other hosts' changes").count == 2, "\(log)")
        #expect(log.components(separatedBy: "Following the other hosts' changes again").count == 2, "\(log)")
        #expect(try daemon.terminate() == 0, "\(daemon.log)")
        #expect(!FileManager.default.fileExists(atPath: marker), "another host's rejection ran this host's on_reject")
    }

    /// The gallery's live updates (`/api/v1/events`) show another host's events too.
    @Test func theGallerysLiveUpdatesShowAnotherHostsEvents() throws {
        let server = try PostgresServer()
        defer { server.remove() }
        let world = try TestWorld()
        defer { world.remove() }
        let web = world.root.appendingPathComponent("web.sock").path
        let daemon = try RunningDaemon(
            world: world,
            extra: [
                "--catalog", server.tcpURL, "--catalog-password-file", server.passwordFile, "--host-name", "kitchen-1",
                "--web-listen", "unix:" + web,
            ])
        try daemon.waitUntil("following the other hosts' changes") {
            daemon.log.contains("Following the other hosts' changes in the catalog")
        }
        let seen = try WebClient(socketPath: web).stream("/api/v1/events", seconds: 60, onOpen: {
            try Self.notify(server, from: "kitchen-2", rejecting: "Spork.jpg")
        }) { text in
            text.contains("event: rejected") && text.contains("Spork.jpg")
        }
        #expect(seen.contains(#""host":"kitchen-2""#), "\(seen)")
        #expect(try daemon.terminate() == 0, "\(daemon.log)")
    }

    /// PostgreSQL stopped under two hosts while both ingest and reject: each host's
    /// `events` followers get every event of both hosts exactly once — those of the outage once
    /// the catalog answers again (read from its event log), numbered, and in `seq` order.
    @Test func everyEventOfAnOutageArrivesOnBothHostsOnce() throws {
        let server = try PostgresServer()
        defer { server.remove() }
        let worlds = try (0..<2).map { _ in try TestWorld() }
        defer { worlds.forEach { $0.remove() } }
        let shared = worlds[0].state.path
        let daemons = try worlds.enumerated().map { index, world in
            try RunningDaemon(
                world: world,
                extra: [
                    "--catalog", server.tcpURL, "--catalog-password-file", server.passwordFile,
                    "--host-name", "kitchen-\(index + 1)", "--state-dir", shared,
                ])
        }
        let logs = { daemons.map(\.log).joined(separator: "\n") }
        for daemon in daemons {
            try daemon.waitUntil("following the other hosts' changes") {
                daemon.log.contains("Following the other hosts' changes in the catalog")
            }
        }
        let followers = try worlds.map { world in
            let follower = try RawControlClient(path: world.root.appendingPathComponent("control.sock").path)
            #expect(follower.send(#"{"v":1,"command":"events"}"# + "\n"))
            #expect(try #require(follower.readLine()).contains(#""subscribed":true"#))
            return follower
        }
        var seen: [[String]] = [[], []]
        let photos = try TestImages.make((1...4).map { TestImages.jpeg(worlds[0].root.path + "/p\($0)", seed: 70 + $0) })
        try worlds[0].drop("Before.jpg", photos[0])
        try Self.read(followers, into: &seen, until: ["Before.jpg"], log: logs)

        try server.stop(.fast)
        for daemon in daemons {
            try daemon.waitUntil(seconds: 120, "the feed lost") { daemon.log.contains("Cannot follow the other hosts' changes") }
        }
        try worlds[1].drop("Junk.jpg", Data("junk".utf8))
        try worlds[0].drop("During one.jpg", photos[1])
        try worlds[1].drop("During two.jpg", photos[2])
        try server.start()
        try Self.read(followers, into: &seen, until: ["Junk.jpg", "During one.jpg", "During two.jpg"], log: logs)
        // Anything shown twice would come before this, in seq order.
        try worlds[1].drop("After.jpg", photos[3])
        try Self.read(followers, into: &seen, until: ["After.jpg"], log: logs)
        for (host, lines) in seen.enumerated() {
            let files = lines.compactMap(Self.inboxFile)
            #expect(files.sorted() == ["After.jpg", "Before.jpg", "During one.jpg", "During two.jpg", "Junk.jpg"], "kitchen-\(host + 1): \(lines)")
            let seqs = lines.compactMap(Self.seq)
            #expect(seqs == seqs.sorted(), "kitchen-\(host + 1): \(lines)")
        }
        for daemon in daemons { #expect(try daemon.terminate() == 0, "\(daemon.log)") }
    }

    /// Reads each follower's event lines into `seen` until each has named every file of `files`.
    private static func read(
        _ followers: [RawControlClient], into seen: inout [[String]], until files: [String], log: () -> String
    ) throws {
        for (index, follower) in followers.enumerated() {
            var lines = seen[index]
            try Poll.until(seconds: 180, "\(files) on kitchen-\(index + 1)", detail: { "\(lines)\n\(log())" }) {
                if let line = follower.readLine() { lines.append(line) }
                return files.allSatisfy { file in lines.contains { inboxFile($0) == file } }
            }
            seen[index] = lines
        }
    }

    private static func event(_ line: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["event"] as? [String: Any]
    }

    private static func inboxFile(_ line: String) -> String? { event(line)?["inboxFile"] as? String }

    private static func seq(_ line: String) -> Int64? { (event(line)?["seq"] as? NSNumber)?.int64Value }

    /// Sends a rejection event as the host `host` would (its name, a line break, the JSON).
    private static func notify(_ server: PostgresServer, from host: String, rejecting file: String) throws {
        let event = #"{"at":"2026-11-26T10:00:00.000Z","inboxFile":"\#(file)","kind":"rejected","message":"Broken.","reason":"corrupt-image"}"#
        _ = try server.superuserSQL(
            "SELECT pg_notify('utensild_events', '\(host)' || chr(10) || '\(event)')", database: server.database)
    }

    /// Reads event lines into `lines` until one names `file`.
    private static func read(
        _ follower: RawControlClient, into lines: inout [String], until file: String, log: () -> String
    ) throws {
        var seen = lines
        try Poll.until(seconds: 60, "\(file) in the events", detail: { "\(seen)\n\(log())" }) {
            if let line = follower.readLine() { seen.append(line) }
            return seen.contains { $0.contains(file) }
        }
        lines = seen
    }
}
