import Foundation
import Testing
import UtensilCatalogModel
import UtensilCodec
import UtensilIngest
@testable import UtensilStore
import UtensilTestSupport

/// Each utensil's display-size preview (`previews/<id>.jpeg`) lives and dies with it, as its
/// thumbnail does: made in the ingest's commit, replaced with its photo, removed with it,
/// made again by `rethumb`, its absence reported by `check`.
@Suite("Previews in the store")
struct PreviewStoreTests {
    struct Kitchen {
        let world: TestWorld
        let store: UtensilStore
        let engine: IngestEngine
        let images: [Data]
        let pan: UtensilRecord
        let jar: UtensilRecord

        init(replace: Bool = false, trashDays: Double = 30) async throws {
            let world = try TestWorld()
            self.world = world
            var settings = world.settings(rejectDuplicateNames: !replace)
            settings.replaceDuplicateNames = replace
            settings.trashDays = trashDays
            let root = world.root.path
            images = try TestImages.make([
                TestImages.jpeg(root + "/pan", width: 2400, height: 1800, seed: 71),
                TestImages.png(root + "/jar", width: 600, height: 900, seed: 72),
                TestImages.jpeg(root + "/tall", width: 1000, height: 2000, seed: 73),
            ])
            engine = try world.engine(settings)
            try world.drop("Pan.jpg", images[0])
            try world.drop("Jar.png", images[1])
            _ = try world.ingest("Pan.jpg", with: engine)
            _ = try world.ingest("Jar.png", with: engine)
            store = engine.store
            pan = try await store.find("Pan")
            jar = try await store.find("Jar")
        }

        func preview(_ record: UtensilRecord) -> URL {
            world.previews.appendingPathComponent("\(record.id.uuidString).jpeg")
        }

        func exists(_ url: URL) -> Bool { FileManager.default.fileExists(atPath: url.path) }

        /// The preview's size, read by the codec.
        func previewSize(_ record: UtensilRecord) throws -> (Int, Int) {
            let bytes = try Data(contentsOf: preview(record))
            let made = try bytes.withUnsafeBytes { raw in
                Result { () throws(ImageCodecError) in try ThumbnailMaker(request: ThumbnailRequest()).makeThumbnail(from: raw) }
            }.get()
            #expect(made.format == .jpeg)
            return (made.width, made.height)
        }
    }

    @Test func anIngestMakesAPreviewOfTheLongSideAndAspect() async throws {
        let kitchen = try await Kitchen()
        defer { kitchen.world.remove() }
        #expect(try kitchen.previewSize(kitchen.pan) == (1500, 1125), "a JPEG's: its decode at 5/8")
        #expect(try kitchen.previewSize(kitchen.jar) == (600, 900), "a smaller photo is not enlarged")
        #expect(kitchen.store.previewPath(of: kitchen.pan).description == kitchen.preview(kitchen.pan).path)
        try InvariantChecker(world: kitchen.world).verify(inputs: [kitchen.images[0], kitchen.images[1]], inbox: .mustBeEmpty)
    }

    @Test func theTrashKeepsItDeletingForGoodAndThePurgeRemoveIt() async throws {
        let kitchen = try await Kitchen(trashDays: 1)
        defer { kitchen.world.remove() }
        _ = try await kitchen.store.delete(id: kitchen.pan.id, now: false)
        #expect(kitchen.exists(kitchen.preview(kitchen.pan)), "in the trash, the preview stays")
        let purge = try await kitchen.store.purgeExpired(now: Date().addingTimeInterval(86_400 + 1))
        #expect(purge.purged.map(\.id) == [kitchen.pan.id] && purge.filesNotRemoved.isEmpty)
        #expect(!kitchen.exists(kitchen.preview(kitchen.pan)))
        _ = try await kitchen.store.delete(id: kitchen.jar.id, now: true)
        #expect(!kitchen.exists(kitchen.preview(kitchen.jar)))
        try InvariantChecker(world: kitchen.world).verify(inputs: [])
    }

    @Test func aReplacedPhotoGetsANewPreview() async throws {
        let kitchen = try await Kitchen(replace: true)
        defer { kitchen.world.remove() }
        try kitchen.world.drop("Pan.jpg", kitchen.images[2])
        guard case .ingested(let replaced) = try kitchen.world.ingest("Pan.jpg", with: kitchen.engine) else {
            Issue.record("the replacement was not ingested")
            return
        }
        #expect(replaced.id == kitchen.pan.id)
        #expect(try kitchen.previewSize(replaced) == (750, 1500))
        try InvariantChecker(world: kitchen.world).verify(inputs: [kitchen.images[2], kitchen.images[1]], inbox: .mustBeEmpty)
    }

    @Test func checkReportsAMissingPreviewAndRethumbMakesItAgain() async throws {
        let kitchen = try await Kitchen()
        defer { kitchen.world.remove() }
        try FileManager.default.removeItem(at: kitchen.preview(kitchen.jar))
        let report = try await kitchen.store.check()
        #expect(report.rowsWithoutFiles == [kitchen.jar.id.uuidString])
        #expect(try await kitchen.store.missingThumbnails() == [kitchen.jar.id], "rethumb --missing takes it")

        try kitchen.store.rethumb(id: kitchen.jar.id, memory: MemoryBudget(bytes: 512 << 20))
        #expect(try kitchen.previewSize(kitchen.jar) == (600, 900))
        #expect(try await kitchen.store.check().rowsWithoutFiles.isEmpty)
        #expect(try await kitchen.store.missingThumbnails().isEmpty)
        try InvariantChecker(world: kitchen.world).verify(inputs: [kitchen.images[0], kitchen.images[1]], inbox: .mustBeEmpty)
    }

    /// An ingest committed but killed before its files were moved into place leaves its
    /// preview in `staging/` with the rest; the next start puts it into place.
    @Test func aStagedPreviewIsPutIntoPlaceWithItsOriginalAtStart() async throws {
        let kitchen = try await Kitchen()
        defer { kitchen.world.remove() }
        let folders = try kitchen.store.stateFolders()
        let staged = try kitchen.store.stageOut(kitchen.pan, in: folders)  // "Killed" before the delete's commit.
        #expect(!kitchen.exists(kitchen.preview(kitchen.pan)))
        #expect(kitchen.world.files(in: kitchen.world.staging).contains(
            String(decoding: staged.preview, as: UTF8.self)))
        let report = try kitchen.store.reconcile()
        #expect(report.rolledForward == 1)
        #expect(kitchen.exists(kitchen.preview(kitchen.pan)))
        try InvariantChecker(world: kitchen.world).verify(inputs: [kitchen.images[0], kitchen.images[1]], inbox: .mustBeEmpty)
    }
}
