import Foundation
import Testing
import UtensilCatalogSQLite
import UtensilCore
@testable import UtensilStore
import UtensilStorageS3
import UtensilTestSupport

extension StoreOverStorageTests {
    /// Names utensild never writes, put where only it writes (a file copied into `originals/`
    /// by hand, an object put under the bucket's prefix by another program): `check` lists them
    /// among the files without rows once older than a minute, in a folder and in a bucket
    /// alike, and neither start-up recovery nor the sweeper removes them.
    @Test(arguments: Kind.allCases)
    func checkListsNamesUtensildNeverWrites(_ kind: Kind) async throws {
        let world = try TestWorld()
        defer { world.remove() }
        let (store, _, server) = try await Self.store(for: kind, settings: world.settings())
        defer { server?.remove() }
        let storage = store.storage
        _ = try await Self.onThread { try store.reconcile() }
        // Staged by an operation in flight: utensild's, reported as staged, not as foreign.
        _ = try await storage.stage([.original: [1], .thumbnail: [2]], of: UUID(), originalExtension: "jpeg")

        let foreign: [String]
        let stillThere: () async throws -> Bool
        switch kind {
        case .localFolder:
            let names = [world.originals.appendingPathComponent("notes.txt"), world.thumbnails.appendingPathComponent("ladle.jpeg.bak")]
            for file in names { try Data("by hand".utf8).write(to: file) }
            foreign = names.map(\.path).sorted()
            stillThere = { names.allSatisfy { FileManager.default.fileExists(atPath: $0.path) } }
        case .s3:
            let server = try #require(server)
            let client = try server.client()
            let keys = [
                "photos/notes.txt", "photos/originals/notes.txt", "photos/thumbnails/\(UUID().uuidString).JPEG",
                "photos/staging/kitchen-9/stray.bin", "photos/elsewhere/deep/file",
            ]
            for key in keys { try await client.put(key, Array("by another program".utf8)) }
            try await client.put("photos/originals/", [])  // A folder, as some consoles make one: nothing.
            try await client.put("beside/notes.txt", Array("outside the prefix".utf8))
            foreign = keys.map { "s3://\(server.bucket)/\($0)" }.sorted()
            stillThere = {
                for key in keys where try await client.head(key) == nil { return false }
                return true
            }
        }

        let now = try await store.check()
        #expect(now.filesWithoutRows.isEmpty, "younger than a minute: may be an operation in flight: \(now)")
        let later = try await store.check(now: Date().addingTimeInterval(2 * UtensilStore.checkGraceSeconds))
        #expect(later.filesWithoutRows == foreign, "\(later)")
        #expect(later.stagedLeftovers.count == 2, "the staged original and thumbnail: \(later)")

        // Left alone: by start-up recovery and by the sweeper, long after.
        _ = try await Self.onThread { try store.reconcile(now: Date().addingTimeInterval(2 * UtensilStore.storageSweepGrace)) }
        _ = try await store.sweepStorage(now: Date().addingTimeInterval(2 * UtensilStore.storageSweepGrace))
        #expect(try await stillThere())
        #expect(try await store.check(now: Date().addingTimeInterval(4 * UtensilStore.storageSweepGrace)).filesWithoutRows == foreign)
    }
}
