import Foundation
import Testing
import UtensilCatalogModel
import UtensilCore
import UtensilIngest
@testable import UtensilStore
import UtensilTestSupport

/// A photo that can have no fingerprint (one flat tone) is marked as done with
/// ``PhotoFingerprint/nonePossible``: no other photo is taken for a copy of it, and
/// `rethumb --missing` does not pick it again.
@Suite("Featureless photos' fingerprints")
struct FeaturelessFingerprintTests {
    let world: TestWorld

    init() throws { world = try TestWorld() }

    /// Two flat photos of different tones, a JPEG and a PNG.
    func flatPhotos() throws -> [(name: String, bytes: Data)] {
        let folder = world.root.appendingPathComponent("flat")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try PhonePhotos.runPython("""
            import sys
            from PIL import Image
            Image.new('RGB', (640, 480), (128, 128, 128)).save(sys.argv[1] + '/Grey card.jpg', 'JPEG', quality=90)
            Image.new('RGB', (480, 640), (30, 60, 200)).save(sys.argv[1] + '/Blue card.png')
            """, arguments: [folder.path])
        return try ["Grey card.jpg", "Blue card.png"].map { ($0, try Data(contentsOf: folder.appendingPathComponent($0))) }
    }

    @Test("flat photos are marked as done, resemble none, and are not missing a fingerprint")
    func markedAsDone() async throws {
        defer { world.remove() }
        let engine = try world.engine(world.settings())
        var records: [UtensilRecord] = []
        for (name, bytes) in try flatPhotos() {
            try world.drop(name, bytes)
            guard case .ingested(let record) = try world.ingest(name, with: engine) else {
                Issue.record("\(name) was not ingested")
                return
            }
            #expect(record.fingerprint == PhotoFingerprint.nonePossible, "\(name)")
            #expect(record.nearDuplicate == nil, "\(name) was taken for a copy of \(record.nearDuplicate?.name ?? "")")
            records.append(record)
        }
        #expect(try await engine.store.missingThumbnails().isEmpty)

        // As an older version left it: no fingerprint; `rethumb --missing` picks it once.
        var unprinted = try #require(try await engine.store.catalog.utensil(id: records[0].id))
        unprinted.fingerprint = nil
        _ = try await engine.store.catalog.replacePhoto(with: unprinted)
        #expect(try await engine.store.missingThumbnails() == [records[0].id])
        try engine.store.rethumb(id: records[0].id, memory: MemoryBudget(bytes: 512 << 20))
        #expect(try await engine.store.catalog.utensil(id: records[0].id)?.fingerprint == PhotoFingerprint.nonePossible)
        #expect(try await engine.store.missingThumbnails().isEmpty)
    }

    @Test("a flat fingerprint is not held in memory")
    func notHeld() {
        defer { world.remove() }
        let memory = FingerprintMemory()
        memory.add(PhotoFingerprint.nonePossible)
        #expect(memory.count == 0)
    }
}
