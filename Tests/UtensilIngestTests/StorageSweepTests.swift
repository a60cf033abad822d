import Foundation
import Logging
import Testing
import UtensilCatalogSQLite
import UtensilCatalogModel
import UtensilCatalogPostgres
import UtensilConfig
import UtensilCore
@testable import UtensilIngest
import UtensilStorage
import UtensilStorageS3
import UtensilStore
import UtensilTestSupport

/// The storage sweeper (`UtensilStore.sweepStorage`) over each storage (a real SeaweedFS, a local
/// folder several hosts share) and each catalog (SQLite, a real PostgreSQL), with two hosts' stores
/// on one catalog: what crashes left is finished or removed once older than the grace, nothing
/// younger and nothing a row points at is touched, and one host sweeps at a time; `check` names
/// what is left meanwhile.
@Suite("The storage sweeper", .serialized, .tags(.spawnsProcesses))
struct StorageSweepTests {
    enum CatalogKind: String, CaseIterable, Sendable, CustomStringConvertible {
        case sqlite = "SQLite"
        case postgres = "PostgreSQL"

        var description: String { rawValue }
    }

    typealias StorageKind = StoreOverStorageTests.Kind

    @Test(arguments: CatalogKind.allCases, StorageKind.allCases)
    func sweepsWhatIsOldAndUnreferenced(_ catalogKind: CatalogKind, _ storageKind: StorageKind) async throws {
        let world = try TestWorld()
        defer { world.remove() }
        var settingsA = world.settings()
        settingsA.hostName = "a"
        var settingsB = settingsA
        settingsB.hostName = "b"
        let (storage, server) = try await StoreOverStorageTests.storage(for: storageKind, settings: settingsA)
        defer { server?.remove() }
        let root = world.root.path
        let images = try TestImages.make([
            TestImages.jpeg(root + "/spoon", width: 640, height: 480, seed: 81), TestImages.png(root + "/whisk", seed: 82),
        ]).map { [UInt8]($0) }
        try world.drop("Spoon.jpg", Data(images[0]))
        try world.drop("Whisk.png", Data(images[1]))

        try await Self.withCatalogs(catalogKind, path: settingsA.catalogPath) { [settingsA, settingsB] catalogA, catalogB in
            let storeA = UtensilStore(
                settings: settingsA, catalog: catalogA, storage: storage, logger: TestWorld.quietLogger, faults: FaultInjection())
            let storeB = UtensilStore(
                settings: settingsB, catalog: catalogB, storage: storage.asHost("b"), logger: TestWorld.quietLogger,
                faults: FaultInjection())
            try await StoreOverStorageTests.onThread {
                _ = try storeA.reconcile()
                let engine = IngestEngine(store: storeA, memory: .shared)
                for name in ["Spoon.jpg", "Whisk.png"] {
                    let outcome = try world.ingest(name, with: engine)
                    guard case .ingested = outcome else { throw TestFailure("\(name) was not ingested: \(outcome)") }
                }
            }
            let spoon = try #require(try await catalogA.utensils(nameKey: UtensilName.uniquenessKey(for: "Spoon")).first)
            let whisk = try #require(try await catalogA.utensils(nameKey: UtensilName.uniquenessKey(for: "Whisk")).first)
            _ = try await catalogA.trash(id: whisk.id, at: Date())  // In the trash, its row still points at its files.
            let storageB = storage.asHost("b"), storageC = storage.asHost("c")
            try await storageB.prepare()
            try await storageC.prepare()
            let filler = [UInt8](repeating: 7, count: 64)

            // What crashes leave: the live renditions of a utensil with no row; host b's staged
            // ingest never committed; host c's delete of Spoon cut before its commit (Spoon's
            // renditions only staged); an original beside Whisk's of another type (a replacement
            // interrupted); in a bucket, an unfinished multipart upload.
            let ghost = try await storageB.stage(
                [.original: filler, .thumbnail: filler, .preview: filler], of: UUID(), originalExtension: "jpg")
            try await storageB.publish(ghost)
            let uncommitted = try await storageB.stage([.original: filler, .thumbnail: filler], of: UUID(), originalExtension: "jpg")
            let spoonKeys = [Rendition.original, .thumbnail, .preview].map { RenditionKey($0, of: spoon.id, originalExtension: "jpg") }
            let cutDelete = try await storageC.unpublish(spoonKeys)
            #expect(cutDelete.renditions == [.original, .thumbnail, .preview])
            let stale = try await storageB.stage([.original: filler], of: whisk.id, originalExtension: "jpg")
            try await storageB.publish(stale)
            if let server {
                _ = try await server.client().startMultipartUpload("photos/originals/\(UUID().uuidString).jpg")
            }

            // Young: nothing is touched.
            var liveBefore = 0
            for rendition in Rendition.allCases { liveBefore += try await storage.list(rendition).count }
            let young = try await storeA.sweepStorage()
            #expect(!young.anotherHostSweeps && !young.changedAnything && young.problems.isEmpty, "\(young)")
            #expect(young.youngLeft == 2 + liveBefore, "2 staged operations and every live rendition: \(young)")
            #expect(try await storage.listEveryHostsStaged().count == 2)

            // `check` names what is left: every host's staged renditions, the objects of no row,
            // and Spoon, whose renditions are only staged.
            let later = Date().addingTimeInterval(2 * UtensilStore.storageSweepGrace)
            let found = try await storeA.check(now: later)
            let stagedLocations = try await storage.listEveryHostsStaged().flatMap(\.locations).sorted()
            #expect(stagedLocations.count == 5 && found.stagedLeftovers == stagedLocations, "\(found)")
            #expect(found.filesWithoutRows == ghost.publishingOrder.map { storage.url(of: ghost.key($0)) }.sorted(), "\(found)")
            #expect(found.rowsWithoutFiles == [spoon.id.uuidString])
            let fresh = try await storeA.check()
            #expect(fresh.stagedLeftovers.isEmpty, "younger than a minute: may be in flight")

            // Past the grace, both hosts at once: one sweeps, the other leaves it.
            async let sweptByA = storeA.sweepStorage(now: later)
            async let sweptByB = storeB.sweepStorage(now: later)
            let sweeps = try await [sweptByA, sweptByB]
            #expect(sweeps.filter { !$0.anotherHostSweeps }.count == 1, "\(sweeps)")
            let sweep = try #require(sweeps.first { !$0.anotherHostSweeps })
            #expect(sweep.rolledForward.map(\.operation) == [cutDelete], "Spoon's delete was not committed: put back")
            #expect(sweep.rolledForward.map(\.host) == ["c"])
            #expect(sweep.discarded.map(\.operation) == [uncommitted])
            #expect(
                Set(sweep.orphansRemoved)
                    == Set((ghost.publishingOrder.map(ghost.key) + [stale.key(.original)]).map(storage.url(of:))), "\(sweep)")
            #expect(sweep.uploadsAborted == (server == nil ? 0 : 1))
            #expect(sweep.problems.isEmpty, "\(sweep.problems)")
            let loser = sweeps[0].anotherHostSweeps ? storeA : storeB
            #expect(try await loser.sweepStorage(now: later).anotherHostSweeps, "the lease is the sweeper's")

            // Nothing a row points at went; nothing is left staged or without a row.
            #expect(try await storage.read(spoonKeys[0], range: nil) == images[0])
            #expect(try await storage.read(RenditionKey(.original, of: whisk.id, originalExtension: "png"), range: nil) == images[1])
            var live: Set<RenditionKey> = []
            for rendition in Rendition.allCases { live.formUnion(try await storage.list(rendition)) }
            let expected = [spoon, whisk].flatMap { record in
                [Rendition.original, .thumbnail, .preview].map { RenditionKey($0, of: record.id, originalExtension: record.fileExtension) }
            }
            #expect(live.isSuperset(of: expected) && Set(live.map(\.utensil)) == [spoon.id, whisk.id], "\(live)")
            #expect(!live.contains(stale.key(.original)))
            #expect(try await storage.listEveryHostsStaged().isEmpty)
            let clean = try await storeA.check(now: later)
            #expect(clean.stagedLeftovers.isEmpty && clean.filesWithoutRows.isEmpty && clean.rowsWithoutFiles.isEmpty, "\(clean)")
            if let server {
                #expect(try await server.client().multipartUploads(prefix: "photos/").isEmpty)
            }
        }
    }

    /// A host that died between a new utensil's puts under their live keys and the delete of
    /// its marker, and never started again: past the grace, the sweeper drops the marker of one
    /// whose row was committed (its objects stay) and removes the objects and marker of one with
    /// no row; `check` then finds nothing.
    @Test func finishesOrUndoesADeadHostsNewUtensils() async throws {
        let world = try TestWorld()
        defer { world.remove() }
        var settings = world.settings()
        settings.hostName = "a"
        let (storage, server) = try await StoreOverStorageTests.storage(for: .s3, settings: settings)
        defer { server?.remove() }
        let catalog = try SQLiteCatalog(path: settings.catalogPath)
        let store = UtensilStore(
            settings: settings, catalog: catalog, storage: storage, logger: TestWorld.quietLogger, faults: FaultInjection())
        let dead = storage.asHost("b")
        let bytes: [Rendition: [UInt8]] = [.original: [1, 2, 3], .thumbnail: [4], .preview: [5], .square: [6]]
        let committed = try await dead.stageNew(bytes, of: UUID(), originalExtension: "png")
        let uncommitted = try await dead.stageNew(bytes, of: UUID(), originalExtension: "png")
        let refusals = try catalog.insert(batch: [UtensilRecord(
            id: committed.utensil, name: "Ladle", nameKey: "ladle", searchKey: "ladle", fileExtension: "png", createdAt: Date(),
            width: 1, height: 1, bytes: 3, sha256: ContentHash.sha256(of: [1, 2, 3]), sourceKey: nil, nameClaim: nil, contentClaim: nil)])
        #expect(refusals == [nil])

        let later = Date().addingTimeInterval(2 * UtensilStore.storageSweepGrace)
        let before = try await store.check(now: later)
        #expect(before.stagedLeftovers.count == 2 && before.filesWithoutRows.count == 4, "the two markers, the four of no row: \(before)")
        let sweep = try await store.sweepStorage(now: later)
        #expect(sweep.rolledForward.map(\.operation.operation) == [committed.operation], "\(sweep)")
        #expect(sweep.discarded.map(\.operation.operation) == [uncommitted.operation], "\(sweep)")
        #expect(sweep.orphansRemoved.isEmpty && sweep.problems.isEmpty, "removed with its marker: \(sweep)")
        for rendition in Rendition.allCases {
            #expect(try await storage.list(rendition) == [committed.key(rendition)])
        }
        #expect(try await storage.listEveryHostsStaged().isEmpty)
        let after = try await store.check(now: later)
        #expect(after.stagedLeftovers.isEmpty && after.filesWithoutRows.isEmpty && after.rowsWithoutFiles.isEmpty, "\(after)")
    }

    /// Two handles on one new catalog of `kind` (as two hosts hold): SQLite's file at `path`, or
    /// a migrated database of a PostgreSQL server of the test's own, its pools running for `body`.
    static func withCatalogs(
        _ kind: CatalogKind, path: String,
        _ body: @Sendable (any CatalogBackend, any CatalogBackend) async throws -> Void
    ) async throws {
        switch kind {
        case .sqlite:
            try await body(try SQLiteCatalog(path: path), try SQLiteCatalog(path: path))
        case .postgres:
            let server = try PostgresServer()
            defer { server.remove() }
            let logger = Logger(label: "sweep-test") { _ in SwiftLogNoOpLogHandler() }
            let settings = PostgresCatalogSettings(
                url: PostgresURL(user: server.role, server: .tcp(host: "127.0.0.1"), port: server.port, database: server.database),
                password: server.password)
            _ = try await PostgresMigrator.migrate(settings: settings, logger: logger)
            let pools = [PostgresPool(settings: settings, logger: logger), PostgresPool(settings: settings, logger: logger)]
            try await withThrowingTaskGroup(of: Void.self) { group in
                for pool in pools { group.addTask { await pool.run() } }
                defer { group.cancelAll() }
                try await body(
                    PostgresCatalog(pool: pools[0], snapshotWriter: SQLiteSnapshotWriter(), logger: logger),
                    PostgresCatalog(pool: pools[1], snapshotWriter: SQLiteSnapshotWriter(), logger: logger))
            }
        }
    }
}
