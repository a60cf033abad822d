import Foundation
import Testing
import UtensilCatalogModel
@testable import UtensilIngest
import UtensilStore
import UtensilTestSupport

/// The engine's side of `duplicate_names = "replace"`, with real files and a real catalog.
@Suite("Replacing a photo in the engine")
struct ReplaceEngineTests {
    func settings(_ world: TestWorld) -> IngestSettings {
        var settings = world.settings(rejectDuplicateNames: false)
        settings.replaceDuplicateNames = true
        return settings
    }

    /// Two drops replacing the same utensil at once: the second waits (its temporaries would
    /// have the first's names), then replaces the first's photo in turn.
    @Test func aSecondReplacementOfTheSameUtensilWaitsForTheFirst() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let root = world.root.path
        let images = try TestImages.make([
            TestImages.jpeg(root + "/a", width: 300, height: 200, seed: 51),
            TestImages.jpeg(root + "/b", width: 200, height: 300, seed: 52),
            TestImages.jpeg(root + "/c", width: 250, height: 250, seed: 53),
        ])
        let engine = try world.engine(settings(world))
        try world.drop("Tongs.jpg", images[0])
        guard case .ingested(let original) = try world.ingest("Tongs.jpg", with: engine) else {
            Issue.record("the first Tongs was not ingested")
            return
        }
        try world.drop("Grill/Tongs.jpg", images[1])
        try world.drop("BBQ/TONGS.jpg", images[2])
        guard case .readyToCommit(let first) = engine.prepare(try world.found("Grill/Tongs.jpg")) else {
            Issue.record("the first replacement was not prepared")
            return
        }
        guard case .finished(.retryLater) = engine.prepare(try world.found("BBQ/TONGS.jpg")) else {
            Issue.record("the second replacement did not wait for the first")
            return
        }
        guard case .ingested(let replaced) = engine.commit([first])[0] else {
            Issue.record("the first replacement was not committed")
            return
        }
        #expect(replaced.id == original.id && replaced.sha256 == sha256Hex(images[1]) && replaced.updatedAt != nil)
        guard case .ingested(let again) = try world.ingest("BBQ/TONGS.jpg", with: engine) else {
            Issue.record("the second replacement was not ingested after the first")
            return
        }
        #expect(again.id == original.id && again.name == "Tongs" && again.createdAt == replaced.createdAt)
        #expect(again.category == nil, "a replacement keeps the utensil's category")
        try InvariantChecker(world: world).verify(inputs: [images[2]], inbox: .mustBeEmpty)
    }
}
