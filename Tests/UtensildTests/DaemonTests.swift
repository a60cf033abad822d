import Foundation
import Glibc
import Testing
import UtensilCatalogModel
import UtensilTestSupport

/// The real daemon on temporary folders: drops made the ways people and tools make them.
@Suite("utensild daemon", .serialized, .tags(.spawnsProcesses))
struct DaemonTests {
    /// Runs a shell command (cp, mv, rsync …) and requires success.
    static func shell(_ command: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw TestFailure("`\(command)` failed (\(process.terminationStatus))") }
    }

    static func quoted(_ url: URL) -> String { "'" + url.path.replacingOccurrences(of: "'", with: "'\\''") + "'" }

    /// Photos made outside the inbox, in `world.root/source`.
    static func photos(_ world: TestWorld, count: Int, prefix: String = "Photo", width: Int = 800, height: Int = 600) throws -> [URL] {
        let source = world.root.appendingPathComponent("source")
        try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
        let urls = (0..<count).map { source.appendingPathComponent("\(prefix) \($0).jpg") }
        try TestImages.make(urls.enumerated().map { TestImages.jpeg($1.path, width: width, height: height, seed: 1000 + $0) })
        return urls
    }

    @Test func dropsByCpMvRsyncAndAFolderAreIngested() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let photos = try Self.photos(world, count: 6)
        let daemon = try RunningDaemon(world: world)
        let inbox = Self.quoted(world.inbox)
        try Self.shell("cp \(Self.quoted(photos[0])) \(inbox)/Spoon.jpg")
        try Self.shell("mv \(Self.quoted(photos[1])) \(inbox)/Ladle.jpg")
        try Self.shell("rsync \(Self.quoted(photos[2])) \(inbox)/Whisk.jpg")
        let folder = world.root.appendingPathComponent("Holiday")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for index in 3..<6 { try Self.shell("cp \(Self.quoted(photos[index])) \(Self.quoted(folder))/Pan\(index).jpg") }
        try Self.shell("mv \(Self.quoted(folder)) \(inbox)/")
        let rows = try daemon.waitForCatalog("six utensils") { $0.count == 6 }
        #expect(Set(rows.map(\.name)) == ["Spoon", "Ladle", "Whisk", "Pan3", "Pan4", "Pan5"])
        // Each drop leaves the inbox a moment after its row is listed.
        try daemon.waitUntil("the inbox to empty but for the folder") {
            world.files(in: world.inbox) == ["Holiday"] && world.files(in: world.inbox.appendingPathComponent("Holiday")) == []
        }
        #expect(try daemon.terminate() == 0)
    }

    @Test func aFileWrittenSlowlyIsIngestedOnceAndComplete() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let photo = try Self.photos(world, count: 1, width: 1600, height: 1200)[0]
        let bytes = try Data(contentsOf: photo)
        let daemon = try RunningDaemon(world: world, extra: ["--settle-seconds", "1"])
        let target = world.inbox.appendingPathComponent("Slow spoon.jpg")
        #expect(FileManager.default.createFile(atPath: target.path, contents: nil))
        let handle = try FileHandle(forWritingTo: target)
        let pieces = 6
        let size = (bytes.count + pieces - 1) / pieces
        for index in 0..<pieces {
            // Each piece is written and the file closed and reopened, as a slow copy over a
            // network share would: every close is an IN_CLOSE_WRITE the daemon must not act on.
            try handle.seek(toOffset: UInt64(index * size))
            try handle.write(contentsOf: bytes[(index * size)..<min(bytes.count, (index + 1) * size)])
            try handle.synchronize()
            usleep(400_000)  // The writer's pace: slower than nothing, faster than settle_seconds.
        }
        try handle.close()
        let rows = try daemon.waitForCatalog("the slow photo") { $0.count == 1 }
        #expect(rows[0].sha256 == sha256Hex(bytes))
        #expect(rows[0].bytes == bytes.count)
        #expect(world.files(in: world.rejected).isEmpty)
        #expect(try daemon.terminate() == 0)
    }

    @Test func dropsMadeWhileStoppedAreIngestedAtStart() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let photos = try Self.photos(world, count: 3)
        var inputs: [Data] = []
        for (index, photo) in photos.enumerated() {
            let data = try Data(contentsOf: photo)
            inputs.append(data)
            try world.drop("Before \(index).jpg", data)
        }
        let daemon = try RunningDaemon(world: world)
        try daemon.waitForUtensils(3)
        #expect(try daemon.terminate() == 0)
        try InvariantChecker(world: world).verify(inputs: inputs)
    }

    @Test func aBurstThatOverflowsTheInotifyQueueIsIngestedCompletely() throws {
        let world = try TestWorld()
        defer { world.remove() }
        // The limit is read when an inotify instance is created: lowered only while the
        // daemon starts, so that other tests running meanwhile keep the usual limit.
        let daemon = try InotifyQueueLimit.whileLowered(to: 32) { try RunningDaemon(world: world) }
        // Hundreds of events at once (creations, writes, renames) overflow a queue of 32.
        let staging = world.root.appendingPathComponent("source")
        let photos = try Self.photos(world, count: 240, width: 160, height: 120)
        let inputs = try photos.map { try Data(contentsOf: $0) }
        try Self.shell("mv \(Self.quoted(staging))/* \(Self.quoted(world.inbox))/")
        try daemon.waitForUtensils(inputs.count, seconds: 180)
        #expect(daemon.log.contains("overflow"))
        #expect(try daemon.terminate() == 0)
        try InvariantChecker(world: world).verify(inputs: inputs)
    }

    @Test func theInboxRemovedAndRecreatedIsWatchedAgain() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let photos = try Self.photos(world, count: 2)
        let daemon = try RunningDaemon(world: world)
        try FileManager.default.removeItem(at: world.inbox)
        try daemon.notifications.wait(for: { $0.hasPrefix("STATUS=") && $0.contains("missing") })
        try FileManager.default.createDirectory(at: world.inbox, withIntermediateDirectories: false)
        try daemon.notifications.wait(for: { $0.hasPrefix("STATUS=Watching") }, seconds: 30)
        try Self.shell("cp \(Self.quoted(photos[0])) \(Self.quoted(world.inbox))/After.jpg")
        try daemon.waitForUtensils(1)
        #expect(try daemon.terminate() == 0)
    }

    @Test func sigtermMidBurstExitsZeroAndTheRestIsIngestedAfterRestart() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let photos = try Self.photos(world, count: 30, width: 1600, height: 1200)
        let inputs = try photos.map { try Data(contentsOf: $0) }
        let daemon = try RunningDaemon(world: world, extra: ["--workers", "1"])
        try Self.shell("mv \(Self.quoted(world.root.appendingPathComponent("source")))/* \(Self.quoted(world.inbox))/")
        try daemon.waitForCatalog("the first ingests") { $0.count >= 2 }
        #expect(try daemon.terminate() == 0)
        #expect(daemon.notifications.messages.contains("STOPPING=1"))
        let partial = try InvariantChecker(world: world).verify(inputs: inputs)
        #expect(partial.utensils < 30 && partial.stillInInbox > 0)

        let again = try RunningDaemon(world: world)
        try again.waitForUtensils(30)
        #expect(try again.terminate() == 0)
        let census = try InvariantChecker(world: world).verify(inputs: inputs)
        #expect(census == .init(utensils: 30, rejections: 0, stillInInbox: 0))
    }

    @Test func sighupReloadsTheConfigurationFile() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let config = world.root.appendingPathComponent("utensild.toml")
        try "duplicate_names = \"reject\"\n".write(to: config, atomically: true, encoding: .utf8)
        let photos = try Self.photos(world, count: 2)
        let daemon = try RunningDaemon(world: world, extra: ["--config", config.path])
        try Self.shell("cp \(Self.quoted(photos[0])) \(Self.quoted(world.inbox))/Spoon.jpg")
        try daemon.waitForUtensils(1)

        try "duplicate_names = \"allow\"\nthumbnail_size = 96\n".write(to: config, atomically: true, encoding: .utf8)
        try daemon.reload()
        try daemon.waitUntil("the reload to be logged") { daemon.log.contains("Reloaded the configuration") }
        #expect(daemon.log.contains("duplicate_names"))
        #expect(daemon.log.contains("a restart is needed for thumbnail_size"))
        try Self.shell("cp \(Self.quoted(photos[1])) \(Self.quoted(world.inbox))/spoon.jpg")
        try daemon.waitForUtensils(2)
        #expect(try daemon.terminate() == 0)
    }

    /// A reload reaches every front door, not only the ingests: the daemon's one store holds
    /// the settings, so after SIGHUP a rename through `utensilctl` follows the new
    /// `duplicate_names`.
    @Test func sighupChangesTheRuleARenameFollows() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let config = world.root.appendingPathComponent("utensild.toml")
        try "duplicate_names = \"reject\"\n".write(to: config, atomically: true, encoding: .utf8)
        let photos = try Self.photos(world, count: 2)
        let daemon = try RunningDaemon(world: world, extra: ["--config", config.path])
        try Self.shell("cp \(Self.quoted(photos[0])) \(Self.quoted(world.inbox))/Spoon.jpg")
        try Self.shell("cp \(Self.quoted(photos[1])) \(Self.quoted(world.inbox))/Fork.jpg")
        let rows = try daemon.waitForCatalog("both photos") { $0.count == 2 }
        let fork = try #require(rows.first { $0.name == "Fork" }).id.uuidString
        let socket = world.root.appendingPathComponent("control.sock").path
        let refused = try Utensilctl.run(["rename", fork, "Spoon"], socket: socket)
        #expect(refused.status == 1, "duplicate_names = reject refuses a rename onto a taken name")

        try "duplicate_names = \"allow\"\n".write(to: config, atomically: true, encoding: .utf8)
        try daemon.reload()
        let renamed = try Utensilctl.run(["rename", fork, "Spoon"], socket: socket)
        #expect(renamed.status == 0, "after the reload, duplicate_names = allow lets the rename through: \(renamed.errors)")
        _ = try daemon.waitForCatalog("two utensils named Spoon") { $0.filter { $0.name == "Spoon" }.count == 2 }
        #expect(try daemon.terminate() == 0)
    }

    @Test func systemdHearsReadyStatusWatchdogAndStopping() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let photos = try Self.photos(world, count: 1)
        let daemon = try RunningDaemon(world: world, environment: ["WATCHDOG_USEC": "400000"])
        try daemon.notifications.wait(for: "WATCHDOG=1")
        try Self.shell("cp \(Self.quoted(photos[0])) \(Self.quoted(world.inbox))/Spoon.jpg")
        try daemon.waitForUtensils(1)
        let status = try daemon.notifications.wait(for: { $0.hasPrefix("STATUS=Watching") && $0.contains("1 utensils") })
        #expect(status.contains(world.inbox.path))
        #expect(try daemon.terminate() == 0)
        #expect(daemon.notifications.messages.contains("STOPPING=1"))
    }

    /// The count in `STATUS=` is the catalog's: it follows deletes and renames made through the
    /// control socket, not only ingests.
    @Test func statusCountFollowsIngestsDeletesAndRenames() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let photos = try Self.photos(world, count: 2)
        let daemon = try RunningDaemon(world: world)
        try Self.shell("cp \(Self.quoted(photos[0])) \(Self.quoted(world.inbox))/Spoon.jpg")
        try Self.shell("cp \(Self.quoted(photos[1])) \(Self.quoted(world.inbox))/Fork.jpg")
        let rows = try daemon.waitForCatalog("both photos") { $0.count == 2 }
        try daemon.notifications.wait(for: { $0.hasPrefix("STATUS=Watching") && $0.contains(" 2 utensils") })
        let socket = world.root.appendingPathComponent("control.sock").path
        let spoon = try #require(rows.first { $0.name == "Spoon" }).id.uuidString
        let fork = try #require(rows.first { $0.name == "Fork" }).id.uuidString
        // Only lines sent after the delete count: one sent while the two drops were committed
        // one after the other can read " 1 utensils" too.
        daemon.notifications.reset()
        #expect(try Utensilctl.run(["delete", spoon], socket: socket).status == 0)
        try daemon.notifications.wait(for: { $0.hasPrefix("STATUS=Watching") && $0.contains(" 1 utensils") })
        #expect(try Utensilctl.run(["rename", fork, "Ladle"], socket: socket).status == 0)
        let status = try Utensilctl.run(["--json", "status"], socket: socket)
        #expect(status.json?["utensils"] as? Int == 1)
        #expect(
            daemon.notifications.messages.last { $0.hasPrefix("STATUS=") }?.contains(" 1 utensils") == true,
            "\(daemon.notifications.messages)")
        #expect(try daemon.terminate() == 0)
    }

    @Test func aSecondDaemonOnTheSameStateFolderRefusesToStart() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let daemon = try RunningDaemon(world: world)
        let second = try UtensildProcess.run(UtensildProcess.arguments(for: world))
        #expect(second.status != 0)
        #expect(second.errors.contains("already using this state folder"))
        #expect(try daemon.terminate() == 0)
    }
}
