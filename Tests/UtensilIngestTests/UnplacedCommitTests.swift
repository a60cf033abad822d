import Foundation
import Synchronization
import Testing
@testable import UtensilIngest
import UtensilStore
import UtensilTestSupport

/// A commit whose renditions the storage does not take: a bucket's server stopping between a
/// commit and its publish, which no test can stop at that instant for real, so the fault hook
/// `publishFails` fails the publish as an unreachable storage would. The utensil must not be
/// left without its files until the next start, nor its drop taken as ingested meanwhile.
@Suite("A commit whose files the storage does not take")
struct UnplacedCommitTests {
    /// Whether the storage answers: until ``answer()``, the publishes fail.
    final class StorageSwitch: Sendable {
        private let answers = Mutex(false)
        var answering: Bool { answers.withLock { $0 } }
        func answer() { answers.withLock { $0 = true } }
    }

    /// Drops `name` into `world` and tries it with an engine whose publishes fail as an
    /// unreachable storage's would (only `failing`'s, when named) until the switch answers:
    /// the drop is left for a retry.
    static func dropUnplaced(
        _ name: String, _ photo: Data, in world: TestWorld, failing: String? = nil
    ) throws -> (engine: IngestEngine, storage: StorageSwitch) {
        try world.drop(name, photo)
        let storage = StorageSwitch()
        var faults = FaultInjection()
        faults.publishFails = { utensil in (failing == nil || utensil == failing) && !storage.answering }
        let engine = try world.engine(faults: faults)
        guard case .retryLater = engine.ingest(try world.found(name)) else {
            throw TestFailure("expected \(name) left for a retry")
        }
        return (engine, storage)
    }

    @Test func theDropWaitsUntilTheStorageTakesItsFiles() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let photo = try TestImages.make([TestImages.jpeg(world.root.path + "/a", width: 400, height: 300, seed: 91)])[0]
        let (engine, storage) = try Self.dropUnplaced("Colander.jpg", photo, in: world, failing: "Colander")
        #expect(world.stagedFiles().contains { $0.contains(".original.") }, "its renditions wait: \(world.stagedFiles())")
        // Its retry while the storage still does not answer: the row is committed, but the drop
        // is not taken as ingested while its files are not in place.
        guard case .retryLater = engine.ingest(try world.found("Colander.jpg")) else {
            Issue.record("expected the drop left for a retry again")
            return
        }
        #expect(world.files(in: world.inbox) == ["Colander.jpg"])
        #expect(world.files(in: world.originals).isEmpty)

        storage.answer()
        guard case .alreadyIngested(let record) = engine.ingest(try world.found("Colander.jpg")) else {
            Issue.record("expected the retry to find the drop committed")
            return
        }
        #expect(record.name == "Colander")
        let census = try InvariantChecker(world: world).verify(inputs: [photo])
        #expect(census == .init(utensils: 1, rejections: 0, stillInInbox: 0))
        #expect(world.stagedFiles().isEmpty, "\(world.stagedFiles())")
    }

    /// A staged rendition the storage does not find when the publish is tried again (a bucket's
    /// server that answered 404 for a moment) is not taken as published: the drop waits until
    /// its files are all live.
    @Test func aStagedRenditionNotFoundIsNotTakenAsPublished() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let photo = try TestImages.make([TestImages.jpeg(world.root.path + "/a", width: 400, height: 300, seed: 93)])[0]
        let (engine, storage) = try Self.dropUnplaced("Ladle.jpg", photo, in: world)
        let preview = try #require(world.stagedFiles().first { $0.contains(".preview.") })
        let hidden = world.root.appendingPathComponent("hidden-preview")
        try FileManager.default.moveItem(at: world.stagingRoot.appendingPathComponent(preview), to: hidden)
        storage.answer()
        guard case .retryLater = engine.ingest(try world.found("Ladle.jpg")) else {
            Issue.record("expected the drop to wait for its preview")
            return
        }
        #expect(world.files(in: world.inbox) == ["Ladle.jpg"])
        #expect(world.files(in: world.previews).isEmpty)

        try FileManager.default.moveItem(at: hidden, to: world.stagingRoot.appendingPathComponent(preview))
        guard case .alreadyIngested = engine.ingest(try world.found("Ladle.jpg")) else {
            Issue.record("expected the retry to find Ladle committed")
            return
        }
        let census = try InvariantChecker(world: world).verify(inputs: [photo])
        #expect(census == .init(utensils: 1, rejections: 0, stillInInbox: 0))
        #expect(world.files(in: world.previews).count == 1)
        #expect(world.stagedFiles().isEmpty, "\(world.stagedFiles())")
    }

    /// The next commit puts them in place too, before its own.
    @Test func theNextCommitPlacesThem() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let photos = try TestImages.make((0..<2).map { TestImages.jpeg(world.root.path + "/p\($0)", width: 400, height: 300, seed: 92 + $0) })
        let (engine, storage) = try Self.dropUnplaced("Sieve.jpg", photos[0], in: world)
        storage.answer()
        try world.drop("Strainer.jpg", photos[1])
        guard case .ingested = engine.ingest(try world.found("Strainer.jpg")) else {
            Issue.record("expected Strainer ingested")
            return
        }
        #expect(world.files(in: world.originals).count == 2, "Sieve's original is in place too: \(world.files(in: world.originals))")
        #expect(world.stagedFiles().isEmpty, "\(world.stagedFiles())")
        guard case .alreadyIngested = engine.ingest(try world.found("Sieve.jpg")) else {
            Issue.record("expected the retry to find Sieve committed")
            return
        }
        let census = try InvariantChecker(world: world).verify(inputs: photos)
        #expect(census == .init(utensils: 2, rejections: 0, stillInInbox: 0))
    }
}
