import Foundation
import Glibc
import Testing
import UtensilControlProtocol
import UtensilTestSupport

/// `on_ingest` / `on_reject` with the real daemon: the event's JSON on standard input and the
/// `UTENSIL_*` variables; a hook that fails, hangs or floods its output is logged (and killed)
/// while drops go on being ingested.
@Suite(.serialized, .tags(.spawnsProcesses)) struct IngestHookTests {
    static let failedID = "MESSAGE_ID=5c0b1f6e8a7d4e3f9b2c4d6a8e0f1a37"

    /// Writes `body` as an executable shell script `name` in the world's root.
    static func script(_ world: TestWorld, _ name: String, _ body: String) throws -> String {
        let path = world.root.appendingPathComponent(name).path
        try ("#!/bin/sh\n" + body + "\n").write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, 0o755)
        return path
    }

    @Test func eachHookGetsTheEventJSONAndItsVariables() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let out = world.root.appendingPathComponent("hook-out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        // The environment first, then the JSON by rename: the test waits for the JSON.
        let record = """
            env > "\(out.path)/$UTENSIL_EVENT.env"
            cat > "\(out.path)/$UTENSIL_EVENT.tmp"
            mv "\(out.path)/$UTENSIL_EVENT.tmp" "\(out.path)/$UTENSIL_EVENT.json"
            """
        let hook = try Self.script(world, "record.sh", record)
        let daemon = try RunningDaemon(world: world, extra: ["--on-ingest", hook, "--on-reject", hook])
        defer { daemon.kill() }
        let photo = try TestImages.make([TestImages.jpeg(world.root.appendingPathComponent("p.jpg").path)])[0]
        try world.drop("Knives/Big Spoon.jpg", photo)
        try world.drop("Broken.jpg", Data("not a photo".utf8))

        let rows = try daemon.waitForCatalog("one utensil") { $0.count == 1 }
        try daemon.waitUntil("both hooks to have run") {
            FileManager.default.fileExists(atPath: out.appendingPathComponent("ingested.json").path)
                && FileManager.default.fileExists(atPath: out.appendingPathComponent("rejected.json").path)
        }
        let decoder = LineFraming.makeDecoder()
        let ingestedJSON = try Data(contentsOf: out.appendingPathComponent("ingested.json"))
        #expect(ingestedJSON.last == UInt8(ascii: "\n") && ingestedJSON.dropLast().firstIndex(of: 10) == nil)
        let ingested = try decoder.decode(EventInfo.self, from: ingestedJSON)
        #expect(ingested.kind == .ingested)
        #expect(ingested.inboxFile == "Knives/Big Spoon.jpg")
        #expect(ingested.utensil?.id == rows[0].id.uuidString)
        #expect(ingested.utensil?.name == "Big Spoon")
        #expect(ingested.utensil?.category == "Knives")
        let rejected = try decoder.decode(EventInfo.self, from: Data(contentsOf: out.appendingPathComponent("rejected.json")))
        #expect(rejected.kind == .rejected)
        #expect(rejected.reason == "corrupt-image")
        #expect(rejected.inboxFile == "Broken.jpg")

        let ingestedEnv = try Self.environment(out.appendingPathComponent("ingested.env"))
        #expect(ingestedEnv["UTENSIL_EVENT"] == "ingested")
        #expect(ingestedEnv["UTENSIL_ID"] == rows[0].id.uuidString)
        #expect(ingestedEnv["UTENSIL_NAME"] == "Big Spoon")
        #expect(ingestedEnv["UTENSIL_CATEGORY"] == "Knives")
        #expect(ingestedEnv["UTENSIL_INBOX_FILE"] == "Knives/Big Spoon.jpg")
        #expect(ingestedEnv["UTENSIL_ORIGINAL"] == ingested.utensil?.original)
        #expect(ingestedEnv["UTENSIL_THUMBNAIL"] == ingested.utensil?.thumbnail)
        #expect(ingestedEnv["UTENSIL_SOCKET"] == world.root.appendingPathComponent("control.sock").path)
        #expect(ingestedEnv["UTENSIL_HOST"]?.isEmpty == false)
        #expect(ingestedEnv["PATH"] != nil)
        // Nothing of systemd's or the daemon's own reaches the hook.
        #expect(ingestedEnv["NOTIFY_SOCKET"] == nil)
        #expect(!ingestedEnv.keys.contains { $0.hasPrefix("UTENSILD_") })
        let rejectedEnv = try Self.environment(out.appendingPathComponent("rejected.env"))
        #expect(rejectedEnv["UTENSIL_REJECT_REASON"] == "corrupt-image")
        #expect(rejectedEnv["UTENSIL_ID"] == nil)
        let rejectedFile = try #require(rejectedEnv["UTENSIL_REJECTED_FILE"])
        #expect(rejectedFile == world.rejected.appendingPathComponent("Broken.jpg").path)
        #expect(FileManager.default.fileExists(atPath: rejectedFile))
    }

    @Test func hungAndFailingHooksAreStoppedAndLoggedWhileDropsGoOn() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let hang = try Self.script(world, "hang.sh", "sleep 86399")
        let fail = try Self.script(world, "fail.sh", "echo 'webhook answered 500' >&2\nexit 1")
        let daemon = try RunningDaemon(
            world: world, extra: ["--on-ingest", hang, "--on-reject", fail, "--hook-timeout-seconds", "0.5"])
        defer { daemon.kill() }
        let specs = (0..<10).map { TestImages.jpeg(world.root.appendingPathComponent("s\($0).jpg").path, seed: $0 + 1) }
        let photos = try TestImages.make(specs)
        for (index, photo) in photos.enumerated() { try world.drop("Spoon \(index).jpg", photo) }
        try world.drop("Broken.jpg", Data("not a photo".utf8))

        // Every drop is ingested while the hooks hang (4 at once, the rest waiting).
        try daemon.waitForUtensils(10)
        try daemon.waitUntil("ten hung hooks to be stopped and logged") {
            Self.lines(daemon.log, containing: "ran longer than hook_timeout_seconds").count == 10
        }
        for line in Self.lines(daemon.log, containing: "ran longer than hook_timeout_seconds") {
            #expect(line.contains(Self.failedID) && line.contains("HOOK_END=timeout") && line.contains("HOOK=on_ingest"))
        }
        try daemon.waitUntil("the failing hook to be logged") {
            !Self.lines(daemon.log, containing: "exited with status 1").isEmpty
        }
        let failure = try #require(Self.lines(daemon.log, containing: "exited with status 1").first)
        #expect(failure.contains(Self.failedID) && failure.contains("HOOK=on_reject"))
        #expect(failure.contains("webhook answered 500"))
        #expect(failure.contains("REJECT_REASON=corrupt-image"))
        // The whole process group went: no `sleep 86399` is left.
        try daemon.waitUntil("the hung hooks' children to be gone") { Self.processes(named: "sleep", argument: "86399").isEmpty }
        #expect(try daemon.terminate() == 0)
    }

    @Test func beyondFourRunningAndSixtyFourWaitingAHookIsDroppedAndShutdownStopsTheRest() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let hang = try Self.script(world, "hang.sh", "sleep 86398")
        let daemon = try RunningDaemon(world: world, extra: ["--on-ingest", hang])
        defer { daemon.kill() }
        let count = 80
        let specs = (0..<count).map { TestImages.png(world.root.appendingPathComponent("t\($0).png").path, width: 16, height: 16, seed: $0 + 1) }
        for (index, photo) in try TestImages.make(specs).enumerated() { try world.drop("Tiny \(index).png", photo) }
        try daemon.waitForUtensils(count)
        let dropped = "MESSAGE_ID=e41d7a9c2b6f4c08a5d3f7b1c9e2a604"
        try daemon.waitUntil("the hooks beyond the queue to be dropped") {
            Self.lines(daemon.log, containing: dropped).count >= count - 4 - 64
        }
        #expect(Self.processes(named: "sleep", argument: "86398").count == 4)
        // A stop does not wait for hooks: the running ones are stopped, the waiting ones never start.
        #expect(try daemon.terminate(seconds: 20) == 0)
        #expect(Self.lines(daemon.log, containing: "was stopped because utensild is stopping").count == 4)
        #expect(Self.processes(named: "sleep", argument: "86398").isEmpty)
    }

    @Test func aHookThatPrintsMegabytesIsCutAndTheDaemonStaysSmall() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let flood = try Self.script(world, "flood.sh", "head -c 200000000 /dev/zero | tr '\\0' x")
        let missing = world.root.appendingPathComponent("no-shebang").path
        try "echo hi\n".write(toFile: missing, atomically: false, encoding: .utf8)
        chmod(missing, 0o755)
        let daemon = try RunningDaemon(world: world, extra: ["--on-ingest", flood, "--on-reject", missing])
        defer { daemon.kill() }
        let before = try ProcessMemory.of(daemon.process.processIdentifier)
        let photo = try TestImages.make([TestImages.jpeg(world.root.appendingPathComponent("p.jpg").path)])[0]
        try world.drop("Ladle.jpg", photo)
        try world.drop("Broken.jpg", Data("not a photo".utf8))
        try daemon.waitForUtensils(1)
        try daemon.waitUntil(seconds: 120, "the flooding hook to finish") {
            !Self.lines(daemon.log, containing: "HOOK_OUTPUT_BYTES=200000000").isEmpty
        }
        let line = try #require(Self.lines(daemon.log, containing: "HOOK_OUTPUT_BYTES=200000000").first)
        #expect(line.contains("HOOK_END=\"exit 0\""))
        #expect(!line.contains(Self.failedID))
        #expect(line.contains("HOOK_OUTPUT=" + String(repeating: "x", count: 8192) + " "))
        let after = try ProcessMemory.of(daemon.process.processIdentifier)
        // 200 MB went through; the daemon kept 8 KiB of it.
        #expect(after.peakResidentMiB - before.residentMiB < 60, "before: \(before), after: \(after)")

        // A program without a #! line cannot be executed: no shell steps in, and it is logged.
        try daemon.waitUntil("the unstartable hook to be logged") {
            !Self.lines(daemon.log, containing: "could not be started").isEmpty
        }
        let notStarted = try #require(Self.lines(daemon.log, containing: "could not be started").first)
        #expect(notStarted.contains(Self.failedID) && notStarted.contains("HOOK_END=\"not started\""))
    }

    @Test func aReloadTurnsTheHookOn() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let marker = world.root.appendingPathComponent("ran")
        let hook = try Self.script(world, "record.sh", "echo \"$UTENSIL_NAME\" >> '\(marker.path)'")
        let config = world.root.appendingPathComponent("utensild.toml")
        try "".write(to: config, atomically: true, encoding: .utf8)
        // The later --config replaces the test default's /dev/null.
        let daemon = try RunningDaemon(world: world, extra: ["--config", config.path])
        defer { daemon.kill() }
        let photos = try TestImages.make((1...2).map { TestImages.jpeg(world.root.appendingPathComponent("p\($0).jpg").path, seed: $0) })
        try world.drop("Whisk.jpg", photos[0])
        try daemon.waitForUtensils(1)

        try "on_ingest = \"\(hook)\"\n".write(to: config, atomically: true, encoding: .utf8)
        try daemon.reload()
        #expect(daemon.log.contains("applied on_ingest"))
        try world.drop("Grater.jpg", photos[1])
        try daemon.waitForUtensils(2)
        try daemon.waitUntil("the hook to run after the reload") { FileManager.default.fileExists(atPath: marker.path) }
        #expect(try String(contentsOf: marker, encoding: .utf8) == "Grater\n")
        #expect(try daemon.terminate() == 0)
    }

    /// A hook that ignores SIGTERM and tries to leave its process group (for the daemon's, or
    /// else for a session of its own), then runs as `sleep <hook>`; with a child that leaves its
    /// session, ignores SIGTERM too and runs as `sleep <child>`.
    static func stubborn(_ world: TestWorld, marker: URL, hook: String, child: String) throws -> String {
        try python(world, "stubborn.py", """
            import os, signal, sys
            name = os.environ["UTENSIL_NAME"]
            if name.startswith("Later"):
                open("\(marker.path)", "w").write(name)
                sys.exit(0)
            signal.signal(signal.SIGTERM, signal.SIG_IGN)  # inherited through exec
            left = []
            try:
                os.setpgid(0, os.getpgid(os.getppid()))
                left.append("group")
            except OSError:
                try:
                    os.setsid()
                    left.append("session")
                except OSError:
                    pass
            open("\(marker.path).left-" + name, "w").write(" ".join(left))
            if os.fork() == 0:
                os.setsid()
                os.execv("/bin/sleep", ["sleep", "\(child)"])
            os.execv("/bin/sleep", ["sleep", "\(hook)"])
            """)
    }

    @Test func aHookThatTriesToEscapeIsKilledAtItsLimitAndFreesItsPlace() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let marker = world.root.appendingPathComponent("later-ran")
        let hook = try Self.stubborn(world, marker: marker, hook: "86395", child: "86396")
        let daemon = try RunningDaemon(world: world, extra: ["--on-ingest", hook, "--hook-timeout-seconds", "3"])
        defer { daemon.kill() }
        let photos = try TestImages.make((0..<5).map { TestImages.jpeg(world.root.appendingPathComponent("e\($0).jpg").path, seed: $0 + 1) })
        for index in 0..<4 { try world.drop("Stubborn \(index).jpg", photos[index]) }
        // Every place is taken by a stubborn hook before the next event comes.
        try daemon.waitUntil("four stubborn hooks and their children to run") {
            Self.processes(named: "sleep", argument: "86395").count == 4 && Self.processes(named: "sleep", argument: "86396").count == 4
        }
        try world.drop("Later.jpg", photos[4])
        try daemon.waitUntil(seconds: 30, "the later hook to get a place") { FileManager.default.fileExists(atPath: marker.path) }
        try daemon.waitUntil("the four stubborn hooks to be logged") {
            Self.lines(daemon.log, containing: "ran longer than hook_timeout_seconds").count == 4
        }
        let stopped = Self.lines(daemon.log, containing: "ran longer than hook_timeout_seconds")
        #expect(stopped.allSatisfy { $0.contains("HOOK_END=timeout") && $0.contains("SIGKILL") })
        // A hook may leave neither its process group nor its session.
        for index in 0..<4 {
            let left = try String(contentsOf: world.root.appendingPathComponent("later-ran.left-Stubborn \(index)"), encoding: .utf8)
            #expect(left == "")
        }
        try daemon.waitUntil(seconds: 10, "the stubborn hooks and their children to be gone") {
            Self.processes(named: "sleep", argument: "86395").isEmpty && Self.processes(named: "sleep", argument: "86396").isEmpty
                && Self.zombies(of: daemon.process.processIdentifier).isEmpty
        }
        #expect(try daemon.terminate() == 0)
    }

    @Test func whatAHookLeavesBehindIsKilledAndReaped() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let out = world.root.appendingPathComponent("pids")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        // A background child, and one made a daemon the classic way (fork, setsid, fork, the
        // middle one exits at once): orphaned before anything could see it below the hook.
        let hook = try Self.python(world, "leave.py", """
            import os
            background = os.fork()
            if background == 0:
                os.execv("/bin/sleep", ["sleep", "86394"])
            reader, writer = os.pipe()
            middle = os.fork()
            if middle == 0:
                os.setsid()
                daemonized = os.fork()
                if daemonized == 0:
                    os.execv("/bin/sleep", ["sleep", "86393"])
                os.write(writer, str(daemonized).encode())
                os._exit(0)
            os.close(writer)
            daemonized = os.read(reader, 64).decode()
            os.waitpid(middle, 0)
            name = os.environ["UTENSIL_NAME"]
            open("\(out.path)/" + name + ".tmp", "w").write(f"{background} {daemonized}")
            os.rename("\(out.path)/" + name + ".tmp", "\(out.path)/" + name)
            """)
        let daemon = try RunningDaemon(world: world, extra: ["--on-ingest", hook])
        defer { daemon.kill() }
        let photos = try TestImages.make((0..<2).map { TestImages.jpeg(world.root.appendingPathComponent("l\($0).jpg").path, seed: $0 + 1) })
        for index in 0..<2 { try world.drop("Leaver \(index).jpg", photos[index]) }
        try daemon.waitUntil("both hooks to have run") {
            (0..<2).allSatisfy { FileManager.default.fileExists(atPath: out.appendingPathComponent("Leaver \($0)").path) }
        }
        let pids = try (0..<2).flatMap { index in
            try String(contentsOf: out.appendingPathComponent("Leaver \(index)"), encoding: .utf8).split(separator: " ").compactMap { Int32($0) }
        }
        #expect(pids.count == 4)
        // Each one ended and reaped: not even a zombie has its pid.
        try daemon.waitUntil(seconds: 10, "what the hooks left to be gone") {
            pids.allSatisfy { !FileManager.default.fileExists(atPath: "/proc/\($0)") }
                && Self.zombies(of: daemon.process.processIdentifier).isEmpty
        }
        #expect(Self.processes(named: "sleep", argument: "86394").isEmpty && Self.processes(named: "sleep", argument: "86393").isEmpty)
        try daemon.waitUntil("both runs to be logged") { Self.lines(daemon.log, containing: "HOOK_END=\"exit 0\"").count == 2 }
        #expect(try daemon.terminate() == 0)
    }

    @Test func aStopEndsStubbornHooksWellWithinTheUnitsLimit() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let hook = try Self.stubborn(world, marker: world.root.appendingPathComponent("unused"), hook: "86392", child: "86391")
        let daemon = try RunningDaemon(world: world, extra: ["--on-ingest", hook, "--hook-timeout-seconds", "3600"])
        defer { daemon.kill() }
        let photos = try TestImages.make((0..<2).map { TestImages.jpeg(world.root.appendingPathComponent("s\($0).jpg").path, seed: $0 + 1) })
        for index in 0..<2 { try world.drop("Stubborn \(index).jpg", photos[index]) }
        try daemon.waitUntil("two stubborn hooks and their children to run") {
            Self.processes(named: "sleep", argument: "86392").count == 2 && Self.processes(named: "sleep", argument: "86391").count == 2
        }
        let stopping = ContinuousClock.now
        // SIGTERM ignored, SIGKILL two seconds later: the daemon is gone in a few seconds (the
        // unit allows 30).
        #expect(try daemon.terminate(seconds: 10) == 0)
        let took = ContinuousClock.now - stopping
        #expect(took < .seconds(6), "the stop took \(took)")
        #expect(Self.lines(daemon.log, containing: "was stopped because utensild is stopping").count == 2)
        #expect(Self.processes(named: "sleep", argument: "86392").isEmpty && Self.processes(named: "sleep", argument: "86391").isEmpty)
    }

    // MARK: - Helpers

    /// Writes `body` as an executable Python script `name` in the world's root.
    static func python(_ world: TestWorld, _ name: String, _ body: String) throws -> String {
        let path = world.root.appendingPathComponent(name).path
        try ("#!/usr/bin/python3\n" + body + "\n").write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, 0o755)
        return path
    }

    /// The children of `parent` that have exited and not been reaped.
    static func zombies(of parent: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry in
            guard let pid = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && fields[0] == "Z" && Int32(fields[1]) == parent ? pid : nil
        }
    }

    static func environment(_ file: URL) throws -> [String: String] {
        var result: [String: String] = [:]
        for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            result[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return result
    }

    static func lines(_ log: String, containing text: String) -> [Substring] {
        log.split(separator: "\n").filter { $0.contains(text) }
    }

    /// Processes whose command line is `name … argument`.
    static func processes(named name: String, argument: String) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry in
            guard let pid = Int32(entry),
                  let data = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else { return nil }
            let parts = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            return parts.first.map { $0.hasSuffix(name) } == true && parts.contains(argument) ? pid : nil
        }
    }
}
