import Foundation
import Testing
import UtensilCatalogSQLite
import UtensilCatalogModel
import UtensilCore
import UtensilIngest
import UtensilStorage
import UtensilStorageS3
@testable import UtensilStore
import UtensilTestSupport

/// The one store over each storage: the same ingest, reads by id, delete and start-up
/// recovery, whether the renditions are in the local folder or in a bucket (a real SeaweedFS).
@Suite("The store over every storage", .serialized, .tags(.spawnsProcesses))
struct StoreOverStorageTests {
    enum Kind: String, CaseIterable, Sendable, CustomStringConvertible {
        case localFolder = "local folder"
        case s3 = "S3 (SeaweedFS)"

        var description: String { rawValue }
    }

    @Test(arguments: Kind.allCases)
    func ingestReadDeleteAndRecover(_ kind: Kind) async throws {
        let world = try TestWorld()
        defer { world.remove() }
        let (store, catalog, server) = try await Self.store(for: kind, settings: world.settings())
        defer { server?.remove() }
        let root = world.root.path
        let images = try TestImages.make([
            TestImages.jpeg(root + "/spoon", width: 640, height: 480, seed: 71), TestImages.png(root + "/whisk", seed: 72),
        ]).map { [UInt8]($0) }
        try world.drop("Spoon.jpg", Data(images[0]))
        try world.drop("Whisk.png", Data(images[1]))

        let (spoon, whisk) = try await Self.onThread { () throws -> (UtensilRecord, UtensilRecord) in
            _ = try store.reconcile()
            let engine = IngestEngine(store: store, memory: .shared)
            for name in ["Spoon.jpg", "Whisk.png"] {
                let outcome = try world.ingest(name, with: engine)
                guard case .ingested = outcome else { throw TestFailure("\(name) was not ingested: \(outcome)") }
            }
            let rows = try catalog.all()
            return (try #require(rows.first { $0.name == "Spoon" }), try #require(rows.first { $0.name == "Whisk" }))
        }

        // Read by id, whole and by range, from wherever the storage keeps them.
        #expect(try await store.readRendition(.original, of: spoon.id, fileExtension: "jpg") == images[0])
        #expect(try await store.readRendition(.original, of: whisk.id, fileExtension: "png", range: 8..<24) == Array(images[1][8..<24]))
        for rendition in [Rendition.thumbnail, .preview] {
            #expect(try await (store.renditionStatus(rendition, of: spoon.id, fileExtension: "jpg")?.size ?? 0) > 0, "\(rendition)")
        }
        if kind == .s3 {
            #expect(world.files(in: world.originals).isEmpty, "a bucket's renditions are not in the local folder")
        }

        // Spoon's delete cut before its commit, Whisk's after it: recovery puts Spoon's
        // renditions back and discards Whisk's.
        try await Self.onThread { _ = try store.unpublish(spoon) }
        #expect(try await store.renditionStatus(.original, of: spoon.id, fileExtension: "jpg") == nil)
        let report = try await Self.onThread {
            _ = try store.unpublish(whisk)
            _ = try catalog.delete(id: whisk.id)
            return try store.reconcile()
        }
        #expect(report.rolledForward == 1 && report.rolledBack == 1 && report.leftForNextStart == 0, "\(report)")
        #expect(try await store.readRendition(.original, of: spoon.id, fileExtension: "jpg") == images[0])
        for rendition in Rendition.allCases {
            #expect(try await store.renditionStatus(rendition, of: whisk.id, fileExtension: "png") == nil, "\(rendition)")
        }

        // A delete for good leaves nothing, live or staged.
        guard case .deletedForGood = try await store.delete(id: spoon.id, now: true) else {
            throw TestFailure("Spoon was not deleted for good")
        }
        for rendition in Rendition.allCases {
            #expect(try await store.renditionStatus(rendition, of: spoon.id, fileExtension: "jpg") == nil, "\(rendition)")
        }
        #expect(try await store.storage.listStaged().isEmpty)
    }

    /// A new utensil's renditions kept before its row's commit (in a bucket, under their live
    /// keys), then a crash: the next start discards those of no row and keeps those whose row
    /// was committed, so nothing is left, live or staged, and `check` finds nothing.
    @Test(arguments: Kind.allCases)
    func recoveryFinishesOrUndoesNewUtensils(_ kind: Kind) async throws {
        let world = try TestWorld()
        defer { world.remove() }
        let (store, catalog, server) = try await Self.store(for: kind, settings: world.settings())
        defer { server?.remove() }
        let storage = store.storage
        let bytes: [Rendition: [UInt8]] = [.original: [1, 2, 3], .thumbnail: [4], .preview: [5], .square: [6]]
        let committed = try await storage.stageNew(bytes, of: UUID(), originalExtension: "png")
        let uncommitted = try await storage.stageNew(bytes, of: UUID(), originalExtension: "png")
        try await storage.makeDurable([committed, uncommitted])
        let refusals = try catalog.insert(batch: [UtensilRecord(
            id: committed.utensil, name: "Ladle", nameKey: "ladle", searchKey: "ladle", fileExtension: "png", createdAt: Date(),
            width: 1, height: 1, bytes: 3, sha256: ContentHash.sha256(of: [1, 2, 3]), sourceKey: nil, nameClaim: nil, contentClaim: nil)])
        #expect(refusals == [nil])

        let report = try await Self.onThread { try store.reconcile() }
        #expect(report.rolledForward == 1 && report.rolledBack == 1 && report.leftForNextStart == 0, "\(report)")
        for rendition in Rendition.allCases {
            #expect(try await storage.list(rendition) == [committed.key(rendition)], "\(rendition)")
        }
        #expect(try await storage.listStaged().isEmpty)
        let found = try await store.check(now: Date().addingTimeInterval(2 * UtensilStore.storageSweepGrace))
        #expect(found.stagedLeftovers.isEmpty && found.filesWithoutRows.isEmpty && found.rowsWithoutFiles.isEmpty, "\(found)")
    }

    /// A new utensil's original goes to the storage while its photo decodes; a drop refused
    /// after that (it cannot be decoded, or it is a look-alike and `near_duplicates` rejects)
    /// leaves nothing of it, live or staged, once its outcome is told.
    @Test(arguments: Kind.allCases)
    func refusedAfterItsOriginalWentAheadLeavesNothing(_ kind: Kind) async throws {
        let world = try TestWorld()
        defer { world.remove() }
        var settings = world.settings()
        settings.nearDuplicates = .reject
        let (store, catalog, server) = try await Self.store(for: kind, settings: settings)
        defer { server?.remove() }
        let storage = store.storage
        let root = world.root.path
        let spoonBytes = try TestImages.make([TestImages.jpeg(root + "/spoon", width: 640, height: 480, seed: 73)])[0]
        try world.drop("Spoon.jpg", spoonBytes)
        try world.drop("Cut.jpg", spoonBytes.prefix(spoonBytes.count / 2))
        try world.drop("Spoon again.jpg", spoonBytes + Data([0x00, 0x11]))  // The same pixels, other bytes.

        let outcomes = try await Self.onThread { () throws -> [String: String] in
            _ = try store.reconcile()
            let engine = IngestEngine(store: store, memory: .shared)
            var outcomes: [String: String] = [:]
            for name in ["Spoon.jpg", "Cut.jpg", "Spoon again.jpg"] {
                switch try world.ingest(name, with: engine) {
                case .ingested: outcomes[name] = "ingested"
                case .rejected(let rejection, _): outcomes[name] = rejection.reason.rawValue
                case let other: outcomes[name] = "\(other)"
                }
            }
            return outcomes
        }
        #expect(outcomes == ["Spoon.jpg": "ingested", "Cut.jpg": "corrupt-image", "Spoon again.jpg": "near-duplicate"])
        let spoon = try #require(try catalog.all().first)
        for rendition in Rendition.allCases {
            #expect(try await storage.list(rendition) == [RenditionKey(rendition, of: spoon.id, originalExtension: "jpg")], "\(rendition)")
        }
        #expect(try await storage.listStaged().isEmpty)
    }

    /// A look-alike is confirmed by reading the preview of the utensil it resembles; while the
    /// bucket does not answer, that drop waits (`storage-unavailable`) rather than be taken for
    /// a copy on its fingerprint alone, and is rejected as one once the bucket is back.
    @Test func aLookalikeWaitsForTheBucketToConfirmIt() async throws {
        let world = try TestWorld()
        defer { world.remove() }
        var settings = world.settings()
        settings.nearDuplicates = .reject
        let server = try await SeaweedServer()
        defer { server.remove() }
        let storage = S3Storage(
            client: try server.client(timeoutSeconds: 3), location: S3Location(bucket: server.bucket, prefix: "photos"),
            hostName: settings.hostName)
        try await storage.prepare()
        let catalog = try SQLiteCatalog(path: settings.catalogPath)
        let store = UtensilStore(settings: settings, catalog: catalog, storage: storage, logger: TestWorld.quietLogger, faults: FaultInjection())
        let root = world.root.path
        let spoonBytes = try TestImages.make([TestImages.jpeg(root + "/spoon", width: 640, height: 480, seed: 74)])[0]
        try world.drop("Spoon.jpg", spoonBytes)
        try world.drop("Spoon again.jpg", spoonBytes + Data([0x00, 0x11]))  // The same pixels, other bytes.
        let engine = IngestEngine(store: store, memory: .shared)
        let first = try await Self.onThread { _ = try store.reconcile(); return "\(try world.ingest("Spoon.jpg", with: engine))" }
        #expect(first.hasPrefix("ingested"), "\(first)")

        server.stop()
        let during = try await Self.onThread { try world.ingest("Spoon again.jpg", with: engine) }
        guard case .retryLater(let failure) = during else {
            Issue.record("a look-alike while the bucket is down: \(during)")
            return
        }
        #expect(failure.kind == .storageUnavailable, "\(failure)")

        try await server.start()
        let after = try await Self.onThread { try world.ingest("Spoon again.jpg", with: engine) }
        guard case .rejected(let rejection, _) = after else {
            Issue.record("the look-alike once the bucket is back: \(after)")
            return
        }
        #expect(rejection.reason == .nearDuplicate)
    }

    /// A store with `settings` over the storage of `kind` (``storage(for:settings:)``, prepared)
    /// and a SQLite catalog at `settings.catalogPath`; the server, if any, to remove after.
    static func store(
        for kind: Kind, settings: IngestSettings
    ) async throws -> (store: UtensilStore, catalog: SQLiteCatalog, server: SeaweedServer?) {
        let (storage, server) = try await storage(for: kind, settings: settings)
        try await storage.prepare()
        let catalog = try SQLiteCatalog(path: settings.catalogPath)
        let store = UtensilStore(
            settings: settings, catalog: catalog, storage: storage, logger: TestWorld.quietLogger, faults: FaultInjection())
        return (store, catalog, server)
    }

    /// The storage of `kind` for a store with `settings`, as host `settings.hostName`: the
    /// local folders, or a bucket of a SeaweedFS of its own under `photos/` (to remove after).
    static func storage(for kind: Kind, settings: IngestSettings) async throws -> (storage: any RenditionStorage, server: SeaweedServer?) {
        switch kind {
        case .localFolder:
            return (UtensilStore.localStorage(settings, faults: FaultInjection()), nil)
        case .s3:
            let server = try await SeaweedServer()
            let storage = S3Storage(
                client: try server.client(), location: S3Location(bucket: server.bucket, prefix: "photos"), hostName: settings.hostName)
            return (storage, server)
        }
    }

    /// Runs blocking store calls on a thread of their own, as the daemon's doors do.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
        }
    }
}
