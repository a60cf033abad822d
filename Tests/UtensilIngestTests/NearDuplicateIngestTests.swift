import Foundation
import Testing
import UtensilCatalogModel
import UtensilCore
import UtensilIngest
@testable import UtensilStore
import UtensilTestSupport

/// `near_duplicates` in the engine, on real photographs (Debian's mate-backgrounds): a
/// chat-app re-save of a utensil's photo (1600 px, JPEG quality 70) is recorded as its
/// look-alike, rejected, or let through, by mode; twelve different photos resemble none.
@Suite("Near-duplicate ingest")
struct NearDuplicateIngestTests {
    static let photoFolder = "/usr/share/backgrounds/mate/nature"
    let world: TestWorld

    init() throws { world = try TestWorld() }

    /// The twelve photographs, by name without extension.
    func photos() throws -> [(name: String, bytes: Data)] {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.photoFolder).filter { $0.hasSuffix(".jpg") }.sorted()
        #expect(files.count == 12, "mate-backgrounds should hold twelve nature photos")
        return try files.map { (String($0.dropLast(4)), try Data(contentsOf: URL(fileURLWithPath: "\(Self.photoFolder)/\($0)"))) }
    }

    /// `Garden.jpg` as a chat app sends it on: at most 1600 px a side, JPEG quality 70.
    func chatCopy() throws -> Data {
        let path = world.root.appendingPathComponent("chat-copy.jpg").path
        try PhonePhotos.runPython("""
            import sys
            from PIL import Image
            image = Image.open('\(Self.photoFolder)/Garden.jpg').convert('RGB')
            image.thumbnail((1600, 1600), Image.LANCZOS)
            image.save(sys.argv[1], 'JPEG', quality=70)
            """, arguments: [path])
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    func engine(_ mode: IngestSettings.NearDuplicates, lookalikePatience: Duration = .seconds(5)) throws -> IngestEngine {
        var settings = world.settings()
        settings.nearDuplicates = mode
        return try world.engine(settings, lookalikePatience: lookalikePatience)
    }

    /// Ingests the twelve photos with `engine`, expecting each to become a utensil that
    /// resembles no other; returns them by name.
    func ingestPhotos(with engine: IngestEngine) throws -> [String: UtensilRecord] {
        var records: [String: UtensilRecord] = [:]
        for (name, bytes) in try photos() {
            try world.drop("\(name).jpg", bytes)
            guard case .ingested(let record) = try world.ingest("\(name).jpg", with: engine) else {
                Issue.record("\(name) was not ingested")
                continue
            }
            #expect(record.fingerprint != nil, "\(name) has no fingerprint")
            #expect(record.nearDuplicate == nil, "\(name) was taken for a copy of \(record.nearDuplicate?.name ?? "")")
            records[name] = record
        }
        return records
    }

    @Test("warn: the copy is ingested and records the photo it resembles; the twelve photos resemble none")
    func warn() async throws {
        defer { world.remove() }
        let engine = try engine(.warn)
        let photos = try ingestPhotos(with: engine)
        let garden = try #require(photos["Garden"])
        try world.drop("Garden from the chat.jpg", try chatCopy())
        guard case .ingested(let copy) = try world.ingest("Garden from the chat.jpg", with: engine) else {
            Issue.record("the copy was not ingested")
            return
        }
        let near = try #require(copy.nearDuplicate)
        #expect(near.id == garden.id && near.name == "Garden")
        #expect(near.distance <= 12)
        #expect(try await engine.store.catalog.utensil(id: copy.id)?.nearDuplicate == near)
        let pairs = try await engine.store.nearDuplicatePairs(limit: 10)
        #expect(pairs.map { [$0.copy.id, $0.original.id] } == [[copy.id, garden.id]])
    }

    @Test("reject: the copy is rejected as near-duplicate, naming the photo it resembles")
    func reject() async throws {
        defer { world.remove() }
        let engine = try engine(.reject)
        let photos = try ingestPhotos(with: engine)
        let garden = try #require(photos["Garden"])
        try world.drop("Garden from the chat.jpg", try chatCopy())
        guard case .rejected(let rejection, _) = try world.ingest("Garden from the chat.jpg", with: engine) else {
            Issue.record("the copy was not rejected")
            return
        }
        #expect(rejection.reason == .nearDuplicate)
        #expect(rejection.message.contains("the utensil Garden (\(garden.id.uuidString))"), "\(rejection.message)")
        // Said for the person who dropped it, who cannot change the daemon's settings.
        #expect(rejection.message.contains("delete this file"), "\(rejection.message)")
        #expect(rejection.message.contains("ask whoever runs utensild"), "\(rejection.message)")
        #expect(!rejection.message.contains("near_duplicates"), "\(rejection.message)")
        #expect(try await engine.store.catalog.count() == 12)
    }

    /// Drops `Garden.jpg` and its chat-app copy and prepares Garden alone (not committed);
    /// nil, with the issue recorded, when it is not prepared.
    func prepareGardenBesideItsCopy(with engine: IngestEngine) throws -> PreparedIngest? {
        let garden = try #require(try photos().first { $0.name == "Garden" })
        try world.drop("Garden.jpg", garden.bytes)
        try world.drop("Garden from the chat.jpg", try chatCopy())
        guard case .readyToCommit(let photo) = engine.prepare(try world.found("Garden.jpg")) else {
            Issue.record("Garden was not prepared")
            return nil
        }
        return photo
    }

    /// The copy's `outcome` once `photo` is committed: with `warn` a utensil that names it, with
    /// `reject` a `near-duplicate` rejection.
    static func expectFoundACopy(_ outcome: IngestOutcome, of photo: UtensilRecord, _ mode: IngestSettings.NearDuplicates) {
        switch (mode, outcome) {
        case (.warn, .ingested(let copy)): #expect(copy.nearDuplicate?.id == photo.id)
        case (.reject, .rejected(let rejection, _)): #expect(rejection.reason == .nearDuplicate)
        case (_, let outcome): Issue.record("the copy, after its photo's commit, came to \(outcome)")
        }
    }

    /// A photo and its copy dropped together: the copy's look-up waits on its thread for the
    /// photo's commit (it would find nothing before), then finds it, with no retry and no
    /// second decode; with `reject`, only one of them gets in.
    @Test("a copy prepared while its photo waits for its commit waits for it, and then finds it", arguments: [
        IngestSettings.NearDuplicates.warn, .reject,
    ])
    func aCopyDroppedBesideItsPhotoWaitsForIt(_ mode: IngestSettings.NearDuplicates) async throws {
        defer { world.remove() }
        let engine = try engine(mode)
        guard let photo = try prepareGardenBesideItsCopy(with: engine) else { return }
        let copy = try world.found("Garden from the chat.jpg")
        let outcome = Task.detached { engine.ingest(copy) }
        let deadline = ContinuousClock.now + .seconds(30)
        while engine.fingerprintsInFlight.waiting == 0 && ContinuousClock.now < deadline { await Task.yield() }
        #expect(engine.fingerprintsInFlight.waiting == 1, "the copy waits for the photo it looks like")
        guard case .ingested(let committed) = engine.commit([photo])[0] else {
            Issue.record("Garden was not committed")
            return
        }
        Self.expectFoundACopy(await outcome.value, of: committed, mode)
        #expect(engine.fingerprintsInFlight.waiting == 0)
    }

    /// A copy whose photo is not committed within the engine's patience is left for a retry,
    /// which then finds the photo.
    @Test("a copy whose photo stays uncommitted past the patience is left for a retry, then found", arguments: [
        IngestSettings.NearDuplicates.warn, .reject,
    ])
    func aCopyDroppedBesideItsPhotoFollowsIt(_ mode: IngestSettings.NearDuplicates) throws {
        defer { world.remove() }
        let engine = try engine(mode, lookalikePatience: .zero)
        guard let photo = try prepareGardenBesideItsCopy(with: engine) else { return }
        guard case .finished(.retryLater(let wait)) = engine.prepare(try world.found("Garden from the chat.jpg")) else {
            Issue.record("the copy did not wait for the photo it looks like")
            return
        }
        #expect(wait.kind == .stillChanging && wait.description.contains("follows it"), "\(wait)")
        guard case .ingested(let committed) = engine.commit([photo])[0] else {
            Issue.record("Garden was not committed")
            return
        }
        Self.expectFoundACopy(try world.ingest("Garden from the chat.jpg", with: engine), of: committed, mode)
    }

    @Test("off: the copy is ingested and records nothing")
    func off() async throws {
        defer { world.remove() }
        let engine = try engine(.off)
        _ = try ingestPhotos(with: engine)
        try world.drop("Garden from the chat.jpg", try chatCopy())
        guard case .ingested(let copy) = try world.ingest("Garden from the chat.jpg", with: engine) else {
            Issue.record("the copy was not ingested")
            return
        }
        #expect(copy.nearDuplicate == nil && copy.fingerprint != nil)
        #expect(try await engine.store.nearDuplicatePairs(limit: 10).isEmpty)
    }

    @Test("rethumb gives a utensil ingested before fingerprints its own, found by its copy")
    func rethumbFingerprints() async throws {
        defer { world.remove() }
        let engine = try engine(.warn)
        let garden = try #require(try photos().first { $0.name == "Garden" })
        try world.drop("Garden.jpg", garden.bytes)
        guard case .ingested(let record) = try world.ingest("Garden.jpg", with: engine) else {
            Issue.record("Garden was not ingested")
            return
        }
        let fingerprint = try #require(record.fingerprint)
        // As an older version left it: no fingerprint, so its copy is not recognised.
        var unprinted = try #require(try await engine.store.catalog.utensil(id: record.id))
        unprinted.fingerprint = nil
        _ = try await engine.store.catalog.replacePhoto(with: unprinted)
        #expect(try await engine.store.catalog.utensil(id: record.id)?.fingerprint == nil)

        try engine.store.rethumb(id: record.id, memory: MemoryBudget(bytes: 512 << 20))
        #expect(try await engine.store.catalog.utensil(id: record.id)?.fingerprint == fingerprint)
        try world.drop("Garden from the chat.jpg", try chatCopy())
        guard case .ingested(let copy) = try world.ingest("Garden from the chat.jpg", with: engine) else {
            Issue.record("the copy was not ingested")
            return
        }
        #expect(copy.nearDuplicate?.id == record.id)
    }

    @Test("rethumb --missing picks exactly the utensils without a fingerprint and gives them theirs")
    func missingFingerprints() async throws {
        defer { world.remove() }
        let engine = try engine(.warn)
        var records: [UtensilRecord] = []
        for (name, bytes) in try photos().prefix(2) {
            try world.drop("\(name).jpg", bytes)
            guard case .ingested(let record) = try world.ingest("\(name).jpg", with: engine) else {
                Issue.record("\(name) was not ingested")
                return
            }
            records.append(record)
        }
        #expect(try await engine.store.missingThumbnails().isEmpty)
        let record = records[0]
        let fingerprint = try #require(record.fingerprint)
        // As an older version left it: thumbnail and preview in place, no fingerprint.
        var unprinted = try #require(try await engine.store.catalog.utensil(id: record.id))
        unprinted.fingerprint = nil
        _ = try await engine.store.catalog.replacePhoto(with: unprinted)

        // What `rethumb --missing` queues, and what each queued utensil gets from the workers.
        let missing = try await engine.store.missingThumbnails()
        #expect(missing == [record.id])
        for id in missing { try engine.store.rethumb(id: id, memory: MemoryBudget(bytes: 512 << 20)) }
        #expect(try await engine.store.catalog.utensil(id: record.id)?.fingerprint == fingerprint)
        #expect(try await engine.store.missingThumbnails().isEmpty)
    }
}
