import Foundation
import Testing
@testable import UtensilIngest
import UtensilStore
import UtensilTestSupport

/// A commit whose reply is lost: a PostgreSQL connection cut between the commit and its answer,
/// which no test can cut at that instant for real, so the fault hook `commitReplyLostFor`
/// makes the catalog's call fail as "unavailable" right after a commit that happened.
@Suite("A commit's reply lost")
struct LostCommitReplyTests {
    /// The store looks the row up before it discards anything: the row is there, so the drop
    /// is a utensil with its files, not a row whose files were thrown away.
    @Test func aCommitWhoseReplyWasLostKeepsItsFiles() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let photo = try TestImages.make([TestImages.jpeg(world.root.path + "/a", width: 640, height: 480, seed: 41)])[0]
        try world.drop("Lost Reply.jpg", photo)
        let engine = try world.engine(faults: FaultInjection(commitReplyLostFor: "Lost Reply"))

        let outcome = engine.ingest(try world.found("Lost Reply.jpg"))
        guard case .ingested(let record) = outcome else {
            Issue.record("expected the drop ingested, got \(outcome)")
            return
        }
        #expect(record.name == "Lost Reply")
        let census = try InvariantChecker(world: world).verify(inputs: [photo])
        #expect(census == .init(utensils: 1, rejections: 0, stillInInbox: 0))
        #expect(world.stagedFiles().isEmpty, "\(world.stagedFiles())")
    }

    /// The same for a replacement (`duplicate_names = "replace"`): the row has the new photo,
    /// so the new files are put in place.
    @Test func aReplacementWhoseReplyWasLostKeepsItsFiles() throws {
        let world = try TestWorld()
        defer { world.remove() }
        var settings = world.settings(rejectDuplicateNames: false)
        settings.replaceDuplicateNames = true
        let images = try TestImages.make([
            TestImages.jpeg(world.root.path + "/a", width: 300, height: 200, seed: 61),
            TestImages.jpeg(world.root.path + "/b", width: 200, height: 300, seed: 62),
        ])
        try world.drop("Tongs.jpg", images[0])
        guard case .ingested(let first) = try world.ingest("Tongs.jpg", with: try world.engine(settings)) else {
            Issue.record("the first Tongs was not ingested")
            return
        }
        try world.drop("Tongs.jpg", images[1])
        let engine = try world.engine(settings, faults: FaultInjection(commitReplyLostFor: "Tongs"))
        guard case .ingested(let replaced) = engine.ingest(try world.found("Tongs.jpg")) else {
            Issue.record("the replacement was not finished")
            return
        }
        #expect(replaced.id == first.id && replaced.sha256 == sha256Hex(images[1]))
        try InvariantChecker(world: world).verify(inputs: [images[1]], inbox: .mustBeEmpty)
        #expect(world.stagedFiles().isEmpty, "\(world.stagedFiles())")
    }

    /// When the catalog cannot even say whether the row is there, the files wait in `staging/`
    /// and the drop is retried; the retry finds the row committed, and the files go into place.
    @Test func aCommitWhoseOutcomeIsUnknownIsFinishedByTheRetry() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let photo = try TestImages.make([TestImages.jpeg(world.root.path + "/a", width: 640, height: 480, seed: 42)])[0]
        try world.drop("Unknown.jpg", photo)
        var faults = FaultInjection(commitReplyLostFor: "Unknown")
        faults.lookupAfterLostReplyFails = true
        let engine = try world.engine(faults: faults)

        guard case .retryLater = engine.ingest(try world.found("Unknown.jpg")) else {
            Issue.record("expected the drop left for a retry")
            return
        }
        #expect(world.stagedFiles().count == 4, "the original, thumbnail, grid square and preview wait: \(world.stagedFiles())")
        guard case .alreadyIngested(let record) = engine.ingest(try world.found("Unknown.jpg")) else {
            Issue.record("expected the retry to find the drop committed")
            return
        }
        #expect(record.name == "Unknown")
        let census = try InvariantChecker(world: world).verify(inputs: [photo])
        #expect(census == .init(utensils: 1, rejections: 0, stillInInbox: 0))
        #expect(world.stagedFiles().isEmpty, "\(world.stagedFiles())")
    }
}
