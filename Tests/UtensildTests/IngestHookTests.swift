import Foundation
import Glibc
import Testing
import UtensilControlProtocol
import UtensilTestSupport

/// `on_ingest` / `on_reject` with the real daemon: the event's JSON on standard input and the
/// `UTENSIL_*` variables; a hook that fails, hangs or floods its output is logged (and killed)
/// while drops go on being ingested.
@Suite(.serialized) struct IngestHookTests {
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

    // MARK: - Helpers

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
