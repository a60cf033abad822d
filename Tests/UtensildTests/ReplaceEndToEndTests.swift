import Foundation
import Testing
import UtensilTestSupport

/// `duplicate_names = "replace"` against the real daemon: a drop named like a utensil gives it
/// a new photo, and the utensil stays itself.
@Suite("Replacing a photo against utensild", .serialized, .tags(.spawnsProcesses))
struct ReplaceEndToEndTests {
    @Test func aDropNamedLikeAUtensilReplacesItsPhoto() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let root = world.root.path
        let images = try TestImages.make([
            TestImages.jpeg(root + "/old", width: 400, height: 300, seed: 41),
            TestImages.png(root + "/new", seed: 42),
            TestImages.jpeg(root + "/newer", width: 300, height: 500, seed: 43),
        ])
        try world.drop("Knives/Spoon.jpg", images[0])
        let daemon = try RunningDaemon(world: world, extra: ["--duplicate-names", "replace"])
        let before = try #require(try daemon.waitForCatalog("the first Spoon") { $0.count == 1 }.first)
        #expect(before.updatedAt == nil)
        // The row commits before its files go live; the drop leaves the inbox after both.
        try daemon.waitUntil("the first drop to leave the inbox") { world.files(in: world.inbox) == ["Knives"] }
        let thumbnailPath = world.thumbnails.appendingPathComponent("\(before.id.uuidString).jpeg")
        let oldThumbnail = try Data(contentsOf: thumbnailPath)

        // A PNG, named differently in case, replaces the JPEG: no old file is left.
        try world.drop("spoon.png", images[1])
        let replaced = try #require(try daemon.waitForCatalog("the replaced Spoon") { $0.first?.sha256 == sha256Hex(images[1]) }.first)
        #expect(replaced.id == before.id)
        #expect(replaced.name == "Spoon")
        #expect(replaced.category == "Knives", "the category stays")
        #expect(replaced.createdAt == before.createdAt)
        #expect(replaced.updatedAt != nil)
        #expect(replaced.fileExtension == "png")
        #expect(replaced.bytes == images[1].count)
        try daemon.waitUntil("the inbox to be empty") { world.files(in: world.inbox) == ["Knives"] }
        #expect(world.files(in: world.originals) == ["\(before.id.uuidString).png"])
        #expect(try Data(contentsOf: world.originals.appendingPathComponent("\(before.id.uuidString).png")) == images[1])
        #expect(try Data(contentsOf: thumbnailPath) != oldThumbnail, "the thumbnail is the new photo's")
        // The journal entry follows the inbox's emptying; wait for it rather than race it.
        try daemon.waitUntil("the replacement's log line") { daemon.log.contains("Replaced the photo of utensil Spoon") }

        // The same photo again is still a duplicate of its content; another JPEG replaces it again.
        try world.drop("Spoon.png", images[1])
        try daemon.waitUntil("the duplicate's rejection") {
            world.files(in: world.rejected).contains { $0.hasSuffix(".error.json") }
        }
        try world.drop("Spoon.jpg", images[2])
        let again = try #require(try daemon.waitForCatalog("the second replacement") { $0.first?.sha256 == sha256Hex(images[2]) }.first)
        #expect(again.id == before.id && again.createdAt == before.createdAt && again.fileExtension == "jpg")
        try daemon.waitUntil("the inbox to be empty") { world.files(in: world.inbox) == ["Knives"] }
        #expect(try daemon.terminate() == 0)
        try InvariantChecker(world: world).verify(inputs: [images[2], images[1]], inbox: .mustBeEmpty)
    }
}
