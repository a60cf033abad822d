import Foundation
import Testing
import UtensilCatalogModel
import UtensilCodec
import UtensilIngest
@testable import UtensilStore
import UtensilTestSupport

/// Each utensil's grid square (`squares/<id>.jpeg`, 540 px) lives and dies with it as its
/// thumbnail does — made in the ingest's commit, replaced with its photo, removed with it, put
/// into place by recovery — except that it may be missing: `check` does not count that as a
/// missing file, and `rethumb --missing` makes it.
@Suite("Grid squares in the store")
struct GridSquareStoreTests {
    struct Kitchen {
        let world: TestWorld
        let store: UtensilStore
        let engine: IngestEngine
        let images: [Data]
        let pan: UtensilRecord
        let jar: UtensilRecord

        init(replace: Bool = false, trashDays: Double = 30) throws {
            let world = try TestWorld()
            self.world = world
            var settings = world.settings(rejectDuplicateNames: !replace)
            settings.replaceDuplicateNames = replace
            settings.trashDays = trashDays
            let root = world.root.path
            images = try TestImages.make([
                TestImages.jpeg(root + "/pan", width: 2400, height: 1800, seed: 81),
                TestImages.png(root + "/jar", width: 600, height: 900, seed: 82),
                TestImages.jpeg(root + "/tall", width: 1000, height: 2000, seed: 83),
            ])
            engine = try world.engine(settings)
            try world.drop("Pan.jpg", images[0])
            try world.drop("Jar.png", images[1])
            guard case .ingested(let pan) = try world.ingest("Pan.jpg", with: engine),
                  case .ingested(let jar) = try world.ingest("Jar.png", with: engine)
            else { throw Unexpected() }
            store = engine.store
            (self.pan, self.jar) = (pan, jar)
        }

        struct Unexpected: Error {}

        func square(_ record: UtensilRecord) -> URL {
            world.squares.appendingPathComponent("\(record.id.uuidString).jpeg")
        }

        func exists(_ url: URL) -> Bool { FileManager.default.fileExists(atPath: url.path) }

        /// The square's size, read by the codec.
        func squareSize(_ record: UtensilRecord) throws -> (Int, Int) {
            let bytes = try Data(contentsOf: square(record))
            let made = try bytes.withUnsafeBytes { raw in
                Result { () throws(ImageCodecError) in try ThumbnailMaker(request: ThumbnailRequest()).makeThumbnail(from: raw) }
            }.get()
            #expect(made.format == .jpeg)
            return (made.width, made.height)
        }

        func verify(_ inputs: [Data]) throws {
            try InvariantChecker(world: world).verify(inputs: inputs, inbox: .mustBeEmpty)
        }
    }

    @Test func anIngestMakesA540PixelSquareBesideTheThumbnail() throws {
        let kitchen = try Kitchen()
        defer { kitchen.world.remove() }
        #expect(try kitchen.squareSize(kitchen.pan) == (540, 540))
        #expect(try kitchen.squareSize(kitchen.jar) == (540, 540), "a photo smaller than that too")
        let thumbnail = kitchen.world.thumbnails.appendingPathComponent("\(kitchen.pan.id.uuidString).jpeg")
        #expect(try Data(contentsOf: thumbnail).count < Data(contentsOf: kitchen.square(kitchen.pan)).count)
        try kitchen.verify([kitchen.images[0], kitchen.images[1]])
    }

    @Test func theTrashKeepsItDeletingForGoodAndThePurgeRemoveIt() async throws {
        let kitchen = try Kitchen(trashDays: 1)
        defer { kitchen.world.remove() }
        _ = try await kitchen.store.delete(id: kitchen.pan.id, now: false)
        #expect(kitchen.exists(kitchen.square(kitchen.pan)), "in the trash, the square stays")
        let purge = try await kitchen.store.purgeExpired(now: Date().addingTimeInterval(86_400 + 1))
        #expect(purge.purged.map(\.id) == [kitchen.pan.id] && purge.filesNotRemoved.isEmpty)
        #expect(!kitchen.exists(kitchen.square(kitchen.pan)))
        _ = try await kitchen.store.delete(id: kitchen.jar.id, now: true)
        #expect(!kitchen.exists(kitchen.square(kitchen.jar)))
        #expect(kitchen.world.files(in: kitchen.world.squares).isEmpty)
        try InvariantChecker(world: kitchen.world).verify(inputs: [])
    }

    @Test func aReplacedPhotoGetsANewSquareAndOneWithoutASquareLosesTheOld() throws {
        let kitchen = try Kitchen(replace: true)
        defer { kitchen.world.remove() }
        let old = try Data(contentsOf: kitchen.square(kitchen.pan))
        try kitchen.world.drop("Pan.jpg", kitchen.images[2])
        guard case .ingested(let replaced) = try kitchen.world.ingest("Pan.jpg", with: kitchen.engine) else {
            Issue.record("the replacement was not ingested")
            return
        }
        #expect(replaced.id == kitchen.pan.id)
        #expect(try Data(contentsOf: kitchen.square(replaced)) != old)
        #expect(try kitchen.squareSize(replaced) == (540, 540))
        try kitchen.verify([kitchen.images[2], kitchen.images[1]])
    }

    @Test func aMissingSquareIsNoMissingFileAndRethumbMakesIt() async throws {
        let kitchen = try Kitchen()
        defer { kitchen.world.remove() }
        let made = try Data(contentsOf: kitchen.square(kitchen.jar))
        try FileManager.default.removeItem(at: kitchen.square(kitchen.jar))
        #expect(try await kitchen.store.check().rowsWithoutFiles.isEmpty, "a utensil may lack its square")
        #expect(try kitchen.store.reconcile().rowsMissingFiles.isEmpty)
        #expect(try await kitchen.store.missingThumbnails() == [kitchen.jar.id], "rethumb --missing takes it")

        try kitchen.store.rethumb(id: kitchen.jar.id, memory: MemoryBudget(bytes: 512 << 20))
        #expect(try Data(contentsOf: kitchen.square(kitchen.jar)) == made, "the same square, from the same photo")
        #expect(try await kitchen.store.missingThumbnails().isEmpty)
        try kitchen.verify([kitchen.images[0], kitchen.images[1]])
    }

    @Test func rethumbReplacesASquareInPlace() throws {
        let kitchen = try Kitchen()
        defer { kitchen.world.remove() }
        try Data([0xFF, 0xD8, 0xFF, 0xD9]).write(to: kitchen.square(kitchen.pan))
        try kitchen.store.rethumb(id: kitchen.pan.id, memory: MemoryBudget(bytes: 512 << 20))
        #expect(try kitchen.squareSize(kitchen.pan) == (540, 540))
        try kitchen.verify([kitchen.images[0], kitchen.images[1]])
    }

    @Test func checkReportsASquareWithoutARow() async throws {
        let kitchen = try Kitchen()
        defer { kitchen.world.remove() }
        let stray = kitchen.world.squares.appendingPathComponent("\(UUID().uuidString).jpeg")
        try Data([1, 2, 3]).write(to: stray)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-3600)], ofItemAtPath: stray.path)
        #expect(try await kitchen.store.check().filesWithoutRows == [stray.path])
    }

    /// A delete killed before its commit leaves the square in `staging/` with the rest; the
    /// next start puts it back into place.
    @Test func aStagedSquareIsPutBackWithItsOriginalAtStart() throws {
        let kitchen = try Kitchen()
        defer { kitchen.world.remove() }
        let folders = try kitchen.store.stateFolders()
        _ = try kitchen.store.stageOut(kitchen.pan, in: folders)  // "Killed" before the delete's commit.
        #expect(!kitchen.exists(kitchen.square(kitchen.pan)))
        #expect(kitchen.world.stagedFiles().contains { $0.hasSuffix(".square.jpeg") })
        let report = try kitchen.store.reconcile()
        #expect(report.rolledForward == 1)
        #expect(kitchen.exists(kitchen.square(kitchen.pan)))
        try kitchen.verify([kitchen.images[0], kitchen.images[1]])
    }
}
