import Foundation
import Glibc
import Testing
import UtensilCatalogModel
import UtensilConfig
import UtensilCore
@testable import UtensilIngest
import UtensilStorage
import UtensilStorageS3
import UtensilStore
import UtensilTestSupport

/// The storage sweeper (`UtensilStore.sweepStorage`) and `check` over files planted in the
/// staging folders (a local `staging/`, a bucket's `staging/` prefix) and beside the live ones:
/// names that parse almost right, links, folders, another host's folder, and valid-looking names
/// of a live utensil. Past the grace the sweeper removes only what is truly unreferenced, under
/// exactly the names it stages; it follows no link, touches nothing outside its folders or
/// prefix, never replaces a live utensil's files with planted ones, and says it removed only
/// what it removed (a second sweep finds nothing to do).
@Suite("The storage sweeper against planted files", .serialized, .tags(.spawnsProcesses))
struct StorageSweepPlantedTests {
    typealias CatalogKind = StorageSweepTests.CatalogKind
    typealias StorageKind = StoreOverStorageTests.Kind

    /// Where a test plants: a local state folder's paths or a bucket's keys, under the same
    /// relative names (`staging/b/…`, `originals/…`).
    struct Planter {
        let world: TestWorld
        let server: SeaweedServer?
        static let prefix = "photos/"

        func put(_ relative: String, _ bytes: [UInt8]) async throws {
            if let server {
                try await server.client().put(Self.prefix + relative, bytes)
            } else {
                let url = world.state.appendingPathComponent(relative)
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(bytes).write(to: url)
            }
        }

        func exists(_ relative: String) async throws -> Bool {
            if let server { return try await server.client().list(prefix: Self.prefix + relative).contains(Self.prefix + relative) }
            var status = stat()
            return lstat(world.state.appendingPathComponent(relative).path, &status) == 0
        }

        func read(_ relative: String) async throws -> [UInt8] {
            if let server { return try await server.client().get(Self.prefix + relative) }
            return [UInt8](try Data(contentsOf: world.state.appendingPathComponent(relative)))
        }

        /// Every key or path under the storage, for failure messages.
        func everything() async throws -> [String] {
            if let server { return try await server.client().list(prefix: "").sorted() }
            return (FileManager.default.enumerator(atPath: world.state.path)?.allObjects as? [String] ?? []).sorted()
        }
    }

    @Test(arguments: CatalogKind.allCases, StorageKind.allCases)
    func removesOnlyWhatIsTrulyUnreferencedAndFollowsNothing(_ catalogKind: CatalogKind, _ storageKind: StorageKind) async throws {
        let world = try TestWorld()
        defer { world.remove() }
        var settings = world.settings()
        settings.hostName = "a"
        let (storage, server) = try await StoreOverStorageTests.storage(for: storageKind, settings: settings)
        defer { server?.remove() }
        let planter = Planter(world: world, server: server)
        let spoonBytes = [UInt8](try TestImages.make([TestImages.jpeg(world.root.path + "/spoon", width: 640, height: 480, seed: 91)])[0])
        try world.drop("Spoon.jpg", Data(spoonBytes))
        // Outside: a photo, a note, and a file under a staged name (behind a link named like a host's folder).
        let outsideStaged = "\(UUID().uuidString).\(UUID().uuidString).original.jpg"
        let canary = try OutsideCanary(
            in: world.root,
            files: ["Ladle.jpg": Data(spoonBytes), "notes.txt": Data("outside".utf8), outsideStaged: Data(repeating: 0xAB, count: 300)])
        if let server { try await server.client().put("elsewhere/canary.jpg", Array("outside the prefix".utf8)) }

        try await StorageSweepTests.withCatalogs(catalogKind, path: settings.catalogPath) { [settings] catalog, _ in
            let store = UtensilStore(
                settings: settings, catalog: catalog, storage: storage, logger: TestWorld.quietLogger, faults: FaultInjection())
            try await StoreOverStorageTests.onThread {
                _ = try store.reconcile()
                guard case .ingested = try world.ingest("Spoon.jpg", with: IngestEngine(store: store, memory: .shared)) else {
                    throw TestFailure("Spoon.jpg was not ingested")
                }
            }
            try await storage.asHost("b").prepare()
            let spoon = try #require(try await catalog.utensils(nameKey: UtensilName.uniquenessKey(for: "Spoon")).first)
            let live = [Rendition.original, .thumbnail, .preview, .square].map { rendition in
                "\(StateLayout.folderName(of: rendition))/\(spoon.id.uuidString).\(rendition.fileExtension(original: "jpg"))"
            }
            var liveBytes: [String: [UInt8]] = [:]
            for path in live { liveBytes[path] = try await planter.read(path) }
            let junk = [UInt8](repeating: 0xAB, count: 300)
            let u = UUID().uuidString, o = UUID().uuidString

            // Names that parse almost right: none is a name the sweeper stages, so none is its to remove.
            var almost = [
                "\(u.lowercased()).\(o).original.jpg", "\(u).\(o.lowercased()).thumbnail.jpeg", "\(u).\(o).original.jpg.extra",
                "\(u).\(o).thumbnail.png", "\(u).\(o).original.JPG", "\(u).\(o).original", "\(u).\(o).Original.jpg",
                ".tmp-\(u).\(o).original.jpg", "\(u).\(o).square.jpeg ", "\(u)-\(o).original.jpg", "\(u).\(o).original.jpg~",
                "\(u).\(o).preview.jpeg.tmp", "\(u).\(o).original.\(String(repeating: "j", count: 40))",
            ].map { "staging/b/\($0)" }
            if server != nil {
                // Keys below a staged name (SeaweedFS refuses `..` in a key, as a climb out of the prefix).
                almost.append("staging/b/\(u).\(o).original.jpg/inner")
                almost.append("staging/b/\(u).\(o).original.jpg/")
                almost.append("staging/\(u).\(o).original.jpg")  // In no host's folder.
            }
            for path in almost {
                try await planter.put(path, junk)
                #expect(try await planter.exists(path), "\(path) could not be planted")
            }

            // Valid names: a ghost's leftovers (no row: removed), and a live utensil's — a
            // different photo (discarded), a thumbnail it already has (discarded), and a copy of
            // its very original beside a junk thumbnail (its live files already are that photo:
            // discarded, never published over them).
            let ghost = UUID().uuidString
            let removed = [
                "staging/b/\(ghost).\(o).original.jpg", "staging/b/\(ghost).\(o).thumbnail.jpeg", "staging/c/\(ghost).\(u).preview.jpeg",
                "staging/b/\(spoon.id.uuidString).\(UUID().uuidString).original.jpg",
                "staging/b/\(spoon.id.uuidString).\(UUID().uuidString).thumbnail.jpeg",
            ]
            for path in removed { try await planter.put(path, junk) }
            // Beside the live files: names the daemon never spells (left alone, never said to be
            // removed), and a grid square of no row (removed).
            let stray = UUID().uuidString
            let strays = [
                "originals/\(stray.lowercased()).jpg", "thumbnails/\(stray).png", "squares/\(stray).jpeg.bak", "previews/\(stray).",
                "originals/\(stray).jpg.part", "originals/\(stray).JPG",
            ]
            for path in strays { try await planter.put(path, junk) }
            let orphan = RenditionKey(.square, of: try #require(UUID(uuidString: stray)), originalExtension: "jpg")
            try await planter.put("squares/\(orphan.fileName)", junk)
            let copyOperation = UUID().uuidString
            let copy = ["staging/b/\(spoon.id.uuidString).\(copyOperation).original.jpg", "staging/b/\(spoon.id.uuidString).\(copyOperation).thumbnail.jpeg"]
            try await planter.put(copy[0], spoonBytes)
            try await planter.put(copy[1], junk)

            // Links and folders under valid names (a local folder only): never followed, never removed.
            var kept: [String] = []
            if server == nil {
                let staging = world.state.appendingPathComponent("staging")
                let link = "staging/b/\(UUID().uuidString).\(o).original.jpg"
                #expect(symlink(canary.folder.appendingPathComponent("Ladle.jpg").path, world.state.appendingPathComponent(link).path) == 0)
                let hostLink = "staging/evil"
                #expect(symlink(canary.folder.path, staging.appendingPathComponent("evil").path) == 0)
                let folder = "staging/b/\(UUID().uuidString).\(o).preview.jpeg"
                #expect(mkdir(world.state.appendingPathComponent(folder).path, 0o700) == 0)
                let liveLink = "originals/\(UUID().uuidString).jpg"
                #expect(symlink(canary.folder.appendingPathComponent("notes.txt").path, world.state.appendingPathComponent(liveLink).path) == 0)
                let liveFolder = "thumbnails/\(UUID().uuidString).jpeg"
                #expect(mkdir(world.state.appendingPathComponent(liveFolder).path, 0o700) == 0)
                kept = [link, hostLink, folder, liveLink, liveFolder]
            }

            // Young: the sweep touches nothing.
            let young = try await store.sweepStorage()
            #expect(!young.changedAnything && young.problems.isEmpty, "\(young)")

            let later = Date().addingTimeInterval(2 * UtensilStore.storageSweepGrace)
            let sweep = try await store.sweepStorage(now: later)
            let everything = try await planter.everything()
            #expect(sweep.rolledForward.isEmpty, "nothing planted is published: \(sweep)")
            #expect(sweep.problems.isEmpty, "\(sweep.problems)")
            #expect(sweep.orphansRemoved == [storage.url(of: orphan)], "\(sweep)")
            #expect(try await !planter.exists("squares/\(orphan.fileName)"))
            for path in removed + copy {
                #expect(try await !planter.exists(path), "\(path) is left\n\(everything)")
            }
            for path in almost + strays + kept {
                #expect(try await planter.exists(path), "\(path) was removed\n\(everything)")
            }
            for path in live {
                #expect(try await planter.read(path) == liveBytes[path], "Spoon's \(path) was changed")
            }
            let stagedByAnyone = Set(sweep.discarded.flatMap(\.locations))
            #expect(!stagedByAnyone.contains { location in almost.contains { location.hasSuffix($0) } }, "\(sweep.discarded)")
            if let server {
                #expect(try await server.client().get("elsewhere/canary.jpg") == Array("outside the prefix".utf8))
            }
            canary.verifyUntouched()

            // What it said it did, it did: a second sweep finds nothing; `check` names no leftover.
            let again = try await store.sweepStorage(now: later)
            #expect(!again.changedAnything && again.problems.isEmpty, "\(again)")
            let found = try await store.check(now: later)
            #expect(found.stagedLeftovers.isEmpty && found.rowsWithoutFiles.isEmpty, "\(found)")
        }
    }
}
