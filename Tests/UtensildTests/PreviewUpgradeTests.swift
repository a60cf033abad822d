import Foundation
import Testing
import UtensilTestSupport

/// A state folder of a version without previews (its utensils have none): the daemon sees
/// `previews/` empty at start and makes them in the background, as `rethumb --missing` would.
@Suite("Previews made at start for a state folder without them", .serialized, .tags(.spawnsProcesses))
struct PreviewUpgradeTests {
    @Test func aStateFolderWithoutPreviewsGetsThemInTheBackground() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let images = try TestImages.make((0..<3).map {
            TestImages.jpeg(world.root.path + "/p\($0)", width: 400, height: 300, seed: 500 + $0)
        })
        for index in 0..<3 { try world.drop("Pot \(index).jpg", images[index]) }
        var daemon = try RunningDaemon(world: world)
        try daemon.waitForUtensils(3)
        #expect(try daemon.terminate() == 0)

        // As a version without previews left it.
        try FileManager.default.removeItem(at: world.previews)
        daemon = try RunningDaemon(world: world)
        try daemon.waitUntil("the previews to be made") { world.files(in: world.previews).count == 3 }
        try daemon.waitUntil("the journal to say so") { daemon.log.contains("added before previews existed") }
        #expect(try daemon.terminate() == 0)
        try InvariantChecker(world: world).verify(inputs: images, inbox: .mustBeEmpty)

        // A restart with every preview there starts no run.
        daemon = try RunningDaemon(world: world)
        let status = try Utensilctl.run(["status", "--json"], socket: world.root.appendingPathComponent("control.sock").path)
        #expect(status.json?["rethumb"] == nil || status.json?["rethumb"] is NSNull, "\(status.output)")
        #expect(try daemon.terminate() == 0)
    }
}
