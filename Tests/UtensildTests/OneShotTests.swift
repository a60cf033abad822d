import Foundation
import Glibc
import Testing
import UtensilTestSupport

/// `utensild --oneshot` as cron users and operators run it.
@Suite("utensild --oneshot", .tags(.spawnsProcesses))
struct OneShotTests {
    @Test func printsALinePerDropAndASummary() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let images = try TestImages.make([TestImages.jpeg(world.root.path + "/a"), TestImages.png(world.root.path + "/b")])
        try world.drop("Spoon.jpg", images[0])
        try world.drop("Ladle.png", images[1])
        try world.drop("Notes.txt", Data("hello".utf8))
        let result = try UtensildProcess.run(UtensildProcess.arguments(for: world, extra: ["--oneshot"]))
        #expect(result.status == 0)
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(lines.contains { $0.hasPrefix("ingested") && $0.contains("Spoon.jpg") })
        #expect(lines.contains { $0.hasPrefix("rejected") && $0.contains("Notes.txt") && $0.contains("unsupported-type") })
        #expect(lines.last == "2 ingested, 1 rejected, 0 left for retry")
        try InvariantChecker(world: world).verify(inputs: images + [Data("hello".utf8)])
    }

    @Test func aFileTheDaemonMayNotReadIsRejectedAsUnreadable() throws {
        // Root reads everything, so utensild runs as `nobody` here, on folders it owns,
        // and the drop belongs to root with mode 0600.
        let world = try TestWorld()
        defer { world.remove() }
        let image = try TestImages.make([TestImages.jpeg(world.root.path + "/a")])[0]
        let drop = try world.drop("Private spoon.jpg", image)
        #expect(chmod(drop.path, 0o600) == 0)
        for folder in [world.root, world.inbox, world.state] {
            #expect(chown(folder.path, 65534, 65534) == 0)
        }
        var arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", try UtensildProcess.binary.path]
        arguments += UtensildProcess.arguments(for: world, extra: ["--oneshot"])
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.contains("unreadable"))
        let sidecar = try world.sidecar(for: "Private spoon.jpg")
        #expect(sidecar["reason"] as? String == "unreadable")
        #expect((sidecar["message"] as? String)?.contains("chmod") == true)
    }

    @Test func aSecondRunWhileOneHoldsTheStateFolderIsRefused() throws {
        let world = try TestWorld()
        defer { world.remove() }
        // A running daemon holds the lock; a oneshot beside it must refuse, not ingest twice.
        let daemon = try RunningDaemon(world: world)
        let result = try UtensildProcess.run(UtensildProcess.arguments(for: world, extra: ["--oneshot"]))
        #expect(result.status == 1)
        #expect(result.errors.contains("already using this state folder"))
        #expect(try daemon.terminate() == 0)
    }

    @Test func aBadConfigurationExitsSeventyEightNamingTheKey() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let result = try UtensildProcess.run(UtensildProcess.arguments(for: world, extra: ["--oneshot", "--thumbnail-size", "huge"]))
        #expect(result.status == 78)
        #expect(result.errors.contains("thumbnail_size") || result.errors.contains("thumbnail-size"))
        #expect(result.errors.split(separator: "\n").count == 1)
    }
}
