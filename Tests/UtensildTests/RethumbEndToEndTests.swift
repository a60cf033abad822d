import Foundation
import Glibc
import Testing
import UtensilTestSupport

/// `utensilctl rethumb` against the real daemon: thumbnails made again from the originals in
/// the background, while new drops keep arriving.
@Suite("Rethumb against utensild", .serialized, .tags(.spawnsProcesses))
struct RethumbEndToEndTests {
    /// `status --json`'s `rethumb` once it reports a finished run with `total` thumbnails.
    private func waitForFinishedRun(_ daemon: RunningDaemon, socket: String, total: Int) throws -> [String: Any] {
        var run: [String: Any] = [:]
        try daemon.waitUntil("the rethumb run to finish") {
            guard let status = try? Utensilctl.run(["status", "--json"], socket: socket).json,
                  let latest = status["rethumb"] as? [String: Any]
            else { return false }
            run = latest
            return latest["finishedAt"] != nil && latest["total"] as? Int == total
        }
        return run
    }

    @Test func rethumbAfterASizeChangeWhileDropsArriveThenMissingOnes() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let root = world.root.path
        let images = try TestImages.make((0..<18).map { index in
            TestImages.jpeg(root + "/photo\(index)", width: 320 + index * 8, height: 240, seed: 300 + index)
        })
        for index in 0..<12 { try world.drop("Utensil \(index).jpg", images[index]) }
        var daemon = try RunningDaemon(world: world)
        try daemon.waitForUtensils(12)
        #expect(try daemon.terminate() == 0)
        try InvariantChecker(world: world, thumbnailSize: 180).verify(inputs: Array(images[0..<12]), inbox: .mustBeEmpty)

        // A new size needs a restart; the run goes on while six new photos are dropped.
        daemon = try RunningDaemon(world: world, extra: ["--thumbnail-size", "96"])
        let socket = world.root.appendingPathComponent("control.sock").path
        let started = try Utensilctl.run(["rethumb", "--all", "--json"], socket: socket)
        #expect(started.status == 0, "\(started.errors)")
        #expect(started.json?["queued"] as? Int == 12)
        for index in 12..<18 { try world.drop("Utensil \(index).jpg", images[index]) }
        let finished = try waitForFinishedRun(daemon, socket: socket, total: 12)
        #expect(finished["failed"] as? Int == 0)
        #expect(finished["size"] as? Int == 96)
        try daemon.waitForUtensils(18)
        try daemon.waitUntil("the inbox to be empty") { world.files(in: world.inbox).isEmpty }
        // Every thumbnail, old and new, is at the new size.
        try InvariantChecker(world: world, thumbnailSize: 96).verify(inputs: images, inbox: .mustBeEmpty)
        try daemon.waitUntil("the summary in the journal") { daemon.log.contains("Made 12 thumbnails again at 96 px") }

        // Thumbnails deleted by hand: --missing makes exactly those.
        let lost = Array(world.files(in: world.thumbnails).prefix(3))
        for name in lost { try FileManager.default.removeItem(at: world.thumbnails.appendingPathComponent(name)) }
        let check = try Utensilctl.run(["check", "--json"], socket: socket)
        #expect((check.json?["rowsWithoutFiles"] as? [String])?.count == 3, "\(check.output)")
        let missing = try Utensilctl.run(["rethumb", "--missing", "--json"], socket: socket)
        #expect(missing.status == 0, "\(missing.errors)")
        #expect(missing.json?["queued"] as? Int == 3)
        _ = try waitForFinishedRun(daemon, socket: socket, total: 3)
        #expect(Set(lost).isSubset(of: Set(world.files(in: world.thumbnails))))
        let status = try Utensilctl.run(["status"], socket: socket)
        #expect(status.output.contains("missing at 96 px: 3 of 3 done (finished)"), "\(status.output)")

        #expect(try daemon.terminate() == 0)
        try InvariantChecker(world: world, thumbnailSize: 96).verify(inputs: images, inbox: .mustBeEmpty)
    }

    /// A `kill -9` in the middle of a run (with the new thumbnail staged, or just moved into
    /// place) leaves every thumbnail whole and nothing staged after the next start; the run
    /// asked again finishes the job.
    @Test(arguments: ["rethumb-staged", "rethumb-moved"])
    func aRunKilledMidwayLeavesWholeThumbnailsAndIsRunAgain(step: String) throws {
        let world = try TestWorld()
        defer { world.remove() }
        let root = world.root.path
        let images = try TestImages.make((0..<6).map { index in
            TestImages.jpeg(root + "/photo\(index)", width: 800, height: 600, seed: 500 + index)
        })
        for index in 0..<6 { try world.drop("Utensil \(index).jpg", images[index]) }
        var daemon = try RunningDaemon(world: world)
        try daemon.waitForUtensils(6)
        #expect(try daemon.terminate() == 0)

        daemon = try RunningDaemon(
            world: world, extra: ["--thumbnail-size", "64"], environment: ["UTENSIL_FAULT_KILL_AT": step])
        let socket = world.root.appendingPathComponent("control.sock").path
        let started = try Utensilctl.run(["rethumb", "--all", "--json"], socket: socket)
        #expect(started.json?["queued"] as? Int == 6)
        try daemon.waitUntil("utensild to kill itself at \(step)") { !daemon.process.isRunning }
        #expect(daemon.process.terminationReason == .uncaughtSignal && daemon.process.terminationStatus == SIGKILL)

        daemon = try RunningDaemon(world: world, extra: ["--thumbnail-size", "64"])
        #expect(world.stagedFiles().isEmpty, "start-up removed what was staged")
        let again = try Utensilctl.run(["rethumb", "--all", "--json"], socket: socket)
        #expect(again.status == 0, "\(again.errors)")
        _ = try waitForFinishedRun(daemon, socket: socket, total: 6)
        #expect(try daemon.terminate() == 0)
        try InvariantChecker(world: world, thumbnailSize: 64).verify(inputs: images, inbox: .mustBeEmpty)
    }

    @Test func rethumbRefusesUnknownIdsAndAmbiguousSelections() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let daemon = try RunningDaemon(world: world)
        let socket = world.root.appendingPathComponent("control.sock").path
        let unknown = try Utensilctl.run(["rethumb", UUID().uuidString], socket: socket)
        #expect(unknown.status != 0)
        #expect(unknown.errors.contains("`utensilctl list`"), "\(unknown.errors)")
        let both = try Utensilctl.run(["rethumb", "--all", "--missing"], socket: socket)
        #expect(both.status != 0)
        #expect(both.errors.contains("exactly one of --all, --missing or utensil ids"), "\(both.errors)")
        #expect(try daemon.terminate() == 0)
    }
}
