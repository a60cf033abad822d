import Foundation
import Testing
import UtensilTestSupport

/// Default-ignorable code points cannot make a second "Spoon", hide one from a search, or
/// hide in the log.
@Suite("Invisible characters in names", .serialized, .tags(.spawnsProcesses))
struct InvisibleCharactersTests {
    @Test func aZeroWidthSpaceNeitherDuplicatesANameNorHidesItFromSearchOrTheLog() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let images = try TestImages.make([
            TestImages.jpeg(world.root.path + "/a", width: 64, height: 48, seed: 71),
            TestImages.png(world.root.path + "/b", seed: 72),
        ])
        try world.drop("Sp\u{200B}oon.jpg", images[0])
        let daemon = try RunningDaemon(world: world)
        try daemon.waitForUtensils(1)
        let socket = world.root.appendingPathComponent("control.sock").path
        let found = try UtensilctlEndToEndTests.ctl(["list", "--search", "spoon", "--json"], socket: socket)
        let utensils = found.json?["utensils"] as? [[String: Any]] ?? []
        #expect(utensils.compactMap { $0["name"] as? String } == ["Sp\u{200B}oon"], "\(found.output)")
        let table = try UtensilctlEndToEndTests.ctl(["list"], socket: socket)
        #expect(table.output.contains(#"Sp\u{200B}oon"#), "\(table.output)")

        try world.drop("Spoon.png", images[1])
        try daemon.waitUntil("Spoon.png to be rejected") { world.files(in: world.rejected).contains("Spoon.png.error.json") }
        #expect(try world.sidecar(for: "Spoon.png")["reason"] as? String == "duplicate-name")
        #expect(try daemon.terminate() == 0)
        #expect(daemon.log.contains(#"Sp\u{200B}oon"#), "the log shows the invisible character escaped\n\(daemon.log)")
        #expect(!daemon.log.unicodeScalars.contains("\u{200B}"), "the log holds a raw zero-width space")
        try InvariantChecker(world: world).verify(inputs: images, inbox: .mustBeEmpty)
    }
}
