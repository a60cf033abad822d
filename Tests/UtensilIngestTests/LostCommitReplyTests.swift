import Foundation
import Testing
@testable import UtensilIngest
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
}
