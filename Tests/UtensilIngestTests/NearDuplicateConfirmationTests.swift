import Foundation
import Testing
import UtensilCatalogModel
import UtensilCore
import UtensilIngest
@testable import UtensilStore
import UtensilTestSupport

/// The finer confirmation in the engine's look-up: two different whisks shot one after another
/// on one bench (`bench/lookalike.py`'s drawing, on Debian's mate-backgrounds `Wood.jpg`) have
/// fingerprints within the threshold, yet the second is not taken for a copy of the first; a
/// chat-app re-save (1600 px, JPEG quality 70) of the first still is.
@Suite("Near-duplicate confirmation")
struct NearDuplicateConfirmationTests {
    /// The series and the two shots in it whose fingerprints are nearest (measured by
    /// `make bench-lookalike`).
    static let series = 4, first = 1, second = 9
    let world: TestWorld

    init() throws { world = try TestWorld() }

    /// The repository's `bench/` folder, where the whisks are drawn.
    static var benchFolder: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("bench").path
    }

    /// The two whisks, and a chat-app re-save of the first.
    func shots() throws -> (first: Data, second: Data, chatCopy: Data) {
        let folder = world.root.appendingPathComponent("shots")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try PhonePhotos.runPython("""
            import os, sys
            sys.path.insert(0, sys.argv[1])
            import lookalike
            from PIL import Image
            shots = lookalike.one_bench(sys.argv[2], seed=\(Self.series))
            os.rename(shots[\(Self.first - 1)][1], os.path.join(sys.argv[2], 'first.jpg'))
            os.rename(shots[\(Self.second - 1)][1], os.path.join(sys.argv[2], 'second.jpg'))
            image = Image.open(os.path.join(sys.argv[2], 'first.jpg')).convert('RGB')
            image.thumbnail((1600, 1600), Image.LANCZOS)
            image.save(os.path.join(sys.argv[2], 'chat.jpg'), 'JPEG', quality=70)
            """, arguments: [Self.benchFolder, folder.path])
        func read(_ name: String) throws -> Data { try Data(contentsOf: folder.appendingPathComponent(name)) }
        return (try read("first.jpg"), try read("second.jpg"), try read("chat.jpg"))
    }

    @Test("reject: another whisk on the bench is let in, a re-save of the first is turned away")
    func reject() async throws {
        defer { world.remove() }
        var settings = world.settings()
        settings.nearDuplicates = .reject
        let engine = try world.engine(settings)
        let shots = try shots()
        try world.drop("Whisk one.jpg", shots.first)
        guard case .ingested(let first) = try world.ingest("Whisk one.jpg", with: engine) else {
            Issue.record("the first whisk was not ingested")
            return
        }
        try world.drop("Whisk two.jpg", shots.second)
        guard case .ingested(let second) = try world.ingest("Whisk two.jpg", with: engine) else {
            Issue.record("the second whisk was taken for a copy of the first")
            return
        }
        // What makes this a test of the confirmation: the fingerprints alone call them copies.
        let near = (try #require(first.fingerprint) ^ (try #require(second.fingerprint))).nonzeroBitCount
        #expect(near <= 12, "the two whisks' fingerprints are \(near) bits apart")
        #expect(second.nearDuplicate == nil)

        try world.drop("Whisk one from the chat.jpg", shots.chatCopy)
        guard case .rejected(let rejection, _) = try world.ingest("Whisk one from the chat.jpg", with: engine) else {
            Issue.record("the re-save was not rejected")
            return
        }
        #expect(rejection.reason == .nearDuplicate)
        #expect(rejection.message.contains("the utensil Whisk one (\(first.id.uuidString))"), "\(rejection.message)")
        #expect(try await engine.store.catalog.count() == 2)
    }

    @Test("warn: the re-save records the whisk it copies, the other whisk records none")
    func warn() async throws {
        defer { world.remove() }
        let engine = try world.engine(world.settings())
        let shots = try shots()
        try world.drop("Whisk one.jpg", shots.first)
        try world.drop("Whisk two.jpg", shots.second)
        guard case .ingested(let first) = try world.ingest("Whisk one.jpg", with: engine),
            case .ingested(let second) = try world.ingest("Whisk two.jpg", with: engine)
        else {
            Issue.record("the whisks were not ingested")
            return
        }
        #expect(second.nearDuplicate == nil)
        try world.drop("Whisk one from the chat.jpg", shots.chatCopy)
        guard case .ingested(let copy) = try world.ingest("Whisk one from the chat.jpg", with: engine) else {
            Issue.record("the re-save was not ingested")
            return
        }
        #expect(copy.nearDuplicate?.id == first.id)
    }
}
