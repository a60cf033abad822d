import Crypto
import Foundation
import Testing
import UtensilCore
import UtensilStorage
import UtensilStorageS3
import UtensilTestSupport

/// What S3Storage adds to the storage contract (which runs it too): where its objects are,
/// a publish stopped between its two requests finished by a second one, and the server's
/// failures as the kinds the store acts on.
@Suite("S3Storage against SeaweedFS", .tags(.spawnsProcesses), .serialized)
struct S3StorageTests {
    static let location = S3Location(bucket: "utensils", prefix: "site")

    @Test("objects are kept under the prefix: staged per host, live per rendition")
    func layout() async throws {
        let server = try await SeaweedServer()
        defer { server.remove() }
        let client = try server.client()
        let storage = S3Storage(client: client, location: Self.location, hostName: "kitchen-2")
        let id = UUID()
        let staged = try await storage.stage(
            [.original: [1, 2, 3], .thumbnail: [4], .square: [5]], of: id, originalExtension: "png")
        let stagedKeys = try await client.list(prefix: "site/staging/kitchen-2/").sorted()
        #expect(stagedKeys == [
            "site/staging/kitchen-2/\(id.uuidString).\(staged.operation.uuidString).original.png",
            "site/staging/kitchen-2/\(id.uuidString).\(staged.operation.uuidString).square.jpeg",
            "site/staging/kitchen-2/\(id.uuidString).\(staged.operation.uuidString).thumbnail.jpeg",
        ])
        let otherHost = S3Storage(client: client, location: Self.location, hostName: "kitchen-3")
        #expect(try await otherHost.listStaged().isEmpty, "each host recovers only its own operations")

        try await storage.publish(staged)
        #expect(try await client.list(prefix: "site/").sorted() == [
            "site/originals/\(id.uuidString).png", "site/squares/\(id.uuidString).jpeg", "site/thumbnails/\(id.uuidString).jpeg",
        ])
        #expect(storage.url(of: staged.key(.square)) == "s3://utensils/site/squares/\(id.uuidString).jpeg")
        #expect(storage.url(of: staged.key(.original)) == "s3://utensils/site/originals/\(id.uuidString).png")
    }

    @Test("a new utensil's objects go straight under their live keys, create-only, beside a marker its publish deletes; a discard deletes them")
    func newUtensilPlacedLive() async throws {
        let server = try await SeaweedServer()
        defer { server.remove() }
        let client = try server.client()
        let storage = S3Storage(client: client, location: Self.location, hostName: "kitchen-1")
        let id = UUID()
        let placed = try await storage.stageNew([.original: [1, 2, 3], .thumbnail: [4]], of: id, originalExtension: "png")
        #expect(placed.isPlacedLive)
        let live = ["site/originals/\(id.uuidString).png", "site/thumbnails/\(id.uuidString).jpeg"]
        let marker = "site/staging/kitchen-1/\(id.uuidString).\(placed.operation.uuidString).new.png"
        #expect(try await client.list(prefix: "site/").sorted() == (live + [marker]).sorted(), "no rendition staged, only the marker")
        #expect(try await storage.listStaged().map(\.operation) == [placed.operation])
        #expect(try await storage.asHost("kitchen-2").listStaged().isEmpty)
        try await storage.publish(placed)
        #expect(try await client.list(prefix: "site/").sorted() == live)
        #expect(try await storage.listStaged().isEmpty)
        #expect(try await storage.readStaged(.original, of: placed) == [1, 2, 3])

        // A live object with other bytes under a key it would take: refused, nothing of it left.
        let other = UUID()
        try await client.put(storage.objectKey(RenditionKey(.thumbnail, of: other, originalExtension: "jpeg")), [9], createOnly: true)
        await #expect(throws: StorageError.alreadyLive(RenditionKey(.thumbnail, of: other, originalExtension: "jpeg"))) {
            _ = try await storage.stageNew([.original: [5], .thumbnail: [6], .preview: [7]], of: other, originalExtension: "jpeg")
        }
        #expect(try await client.list(prefix: "site/").sorted() == (live + ["site/thumbnails/\(other.uuidString).jpeg"]).sorted(), "nor its marker")

        try await storage.discard(placed)
        try await storage.discard(placed)
        #expect(try await client.list(prefix: "site/").sorted() == ["site/thumbnails/\(other.uuidString).jpeg"])
    }

    @Test("a new utensil's original put ahead goes with its marker, and with the rest when one of them is refused")
    func originalPutAhead() async throws {
        let server = try await SeaweedServer()
        defer { server.remove() }
        let client = try server.client()
        let storage = S3Storage(client: client, location: Self.location, hostName: "kitchen-1")
        let id = UUID()
        // The original's SHA-256 as the catalog records it: the server checks the bytes against it.
        let wrong = String(repeating: "ab", count: 32)
        await #expect(throws: StorageError.self) { _ = try await storage.beginNew(original: [1, 2, 3], sha256: wrong, of: id, originalExtension: "png") }
        #expect(try await client.list(prefix: "site/").isEmpty, "a refused original leaves nothing, nor its marker")
        let sha256 = SHA256.hash(data: [1, 2, 3] as [UInt8]).map { String(format: "%02x", $0) }.joined()
        let begun = try #require(try await storage.beginNew(original: [1, 2, 3], sha256: sha256, of: id, originalExtension: "png"))
        let marker = "site/staging/kitchen-1/\(id.uuidString).\(begun.operation.uuidString).new.png"
        #expect(try await client.list(prefix: "site/").sorted() == [marker, "site/originals/\(id.uuidString).png"].sorted())

        // A live object with other bytes under the thumbnail's key: the join is refused, and
        // nothing of the operation is left, its original and marker included.
        let thumbnail = storage.objectKey(begun.key(.thumbnail))
        try await client.put(thumbnail, [9], createOnly: true)
        await #expect(throws: StorageError.alreadyLive(begun.key(.thumbnail))) {
            _ = try await storage.stageNew([.thumbnail: [4], .preview: [5], .square: [6]], joining: begun)
        }
        #expect(try await client.list(prefix: "site/") == [thumbnail])
    }

    @Test("what a new utensil's failed put could not remove while the server was down goes once it answers again")
    func leftoversOfAnOutageGoOnceTheServerAnswers() async throws {
        let server = try await SeaweedServer()
        defer { server.remove() }
        let client = try server.client(timeoutSeconds: 3)
        let storage = S3Storage(client: client, location: Self.location, hostName: "kitchen-1")
        let original: [UInt8] = [1, 2, 3]
        let sha256 = SHA256.hash(data: original).map { String(format: "%02x", $0) }.joined()
        let begun = try #require(try await storage.beginNew(original: original, sha256: sha256, of: UUID(), originalExtension: "png"))

        server.stop()
        await #expect(throws: StorageError.self) { _ = try await storage.stageNew([.thumbnail: [4]], joining: begun) }
        try await server.start()
        #expect(try await client.list(prefix: "site/").count == 2, "the original and its marker, which the server did not let go")

        let next = try #require(try await storage.beginNew(original: original, sha256: sha256, of: UUID(), originalExtension: "png"))
        let marker = "site/staging/kitchen-1/\(next.utensil.uuidString).\(next.operation.uuidString).new.png"
        #expect(try await client.list(prefix: "site/").sorted() == [marker, "site/originals/\(next.utensil.uuidString).png"].sorted())
    }

    @Test("a publish stopped after a live put and before the staged delete is finished by the next")
    func interruptedPublish() async throws {
        let server = try await SeaweedServer()
        defer { server.remove() }
        let client = try server.client()
        let storage = S3Storage(client: client, location: Self.location, hostName: "kitchen-1")
        let staged = try await storage.stage([.original: [7, 7, 7], .preview: [8]], of: UUID(), originalExtension: "jpeg")
        // What a crash between the two requests leaves: the live object, the staged one still there.
        try await client.put(storage.objectKey(staged.key(.preview)), [8], createOnly: true)

        try await storage.publish(staged)
        #expect(try await storage.listStaged().isEmpty)
        #expect(try await storage.read(staged.key(.preview), range: nil) == [8])
        #expect(try await storage.read(staged.key(.original), range: nil) == [7, 7, 7])

        // A live object with other bytes is not taken for one's own.
        let again = try await storage.stage([.preview: [9]], of: staged.utensil, originalExtension: "jpeg")
        await #expect(throws: StorageError.alreadyLive(again.key(.preview))) { try await storage.publish(again) }
        #expect(try await storage.read(staged.key(.preview), range: nil) == [8])
    }

    @Test("the uploads a crash left unfinished are aborted once older than the cutoff, and only under the prefix")
    func unfinishedUploads() async throws {
        let server = try await SeaweedServer()
        defer { server.remove() }
        let client = try server.client()
        let storage = S3Storage(client: client, location: Self.location, hostName: "kitchen-1")
        _ = try await client.startMultipartUpload("site/staging/kitchen-1/interrupted.original.png")
        _ = try await client.startMultipartUpload("elsewhere/not-ours.png")
        #expect(try await storage.abortUnfinishedUploads(begunBefore: Date().addingTimeInterval(-3600)) == 0, "not yet past the grace period")
        #expect(try await storage.abortUnfinishedUploads(begunBefore: Date().addingTimeInterval(3600)) == 1)
        #expect(try await client.multipartUploads(prefix: "site/").isEmpty)
        #expect(try await client.multipartUploads(prefix: "elsewhere/").count == 1, "another prefix is not ours")
    }

    @Test("keys that may only read, list and write the bucket are enough for every operation")
    func leastPrivilege() async throws {
        let server = try await SeaweedServer(actions: ["Read", "List", "Write"])
        defer { server.remove() }
        let client = try server.client(multipartThreshold: 5 << 20, partSize: 5 << 20)
        let storage = S3Storage(client: client, location: Self.location, hostName: "kitchen-1")
        try await storage.prepare()
        let staged = try await storage.stage([.original: Array(repeating: 3, count: 6 << 20), .thumbnail: [1]], of: UUID(), originalExtension: "png")
        #expect(try await storage.listStaged() == [staged])
        try await storage.publish(staged)
        #expect(try await storage.list(.original) == [staged.key(.original)])
        #expect(try await storage.read(staged.key(.thumbnail), range: nil) == [1])
        try await storage.delete(staged.key(.original))
        #expect(try await storage.list(.original).isEmpty)
        _ = try await client.startMultipartUpload("site/unfinished.png")
        #expect(try await storage.abortUnfinishedUploads(begunBefore: Date().addingTimeInterval(3600)) == 1)
        await #expect {
            try await client.createBucket()
        } throws: { error in
            if case .credentialsRefused = error as? S3Error { return true }
            return false
        }
    }

    @Test("an unreachable server, refused keys and a missing bucket are told apart for the store")
    func failures() async throws {
        let server = try await SeaweedServer()
        defer { server.remove() }
        let missing = S3Storage(client: try server.client(bucket: "gone"), location: S3Location(bucket: "gone", prefix: ""), hostName: "h")
        try await expectFailure(.bucketMissing, transient: false) { try await missing.prepare() }

        let wrong = S3Credentials(accessKeyID: server.credentials.accessKeyID, secretAccessKey: "wrong")
        let refused = S3Storage(client: try server.client(credentials: wrong), location: Self.location, hostName: "h")
        try await expectFailure(.credentialsRefused, transient: false) { try await refused.prepare() }

        let storage = S3Storage(client: try server.client(timeoutSeconds: 3), location: Self.location, hostName: "h")
        try await storage.prepare()
        server.stop()
        try await expectFailure(.unreachable, transient: true) {
            _ = try await storage.stage([.thumbnail: [1]], of: UUID(), originalExtension: "jpeg")
        }
        try await server.start()
        #expect(try await storage.listStaged().isEmpty, "a stage that failed left nothing")
    }

    func expectFailure(
        _ kind: ObjectStorageFailure.Kind, transient: Bool, _ body: () async throws -> Void
    ) async throws {
        do {
            try await body()
            Issue.record("expected an object storage failure \(kind)")
        } catch let StorageError.objectStorage(failure) {
            #expect(failure.kind == kind, "\(failure)")
            #expect(failure.isTransient == transient, "\(failure)")
        }
    }

    @Test("storage locations: s3://BUCKET and s3://BUCKET/PREFIX, and nothing else")
    func locations() {
        #expect(S3Location(parsing: "s3://utensils") == S3Location(bucket: "utensils", prefix: ""))
        #expect(S3Location(parsing: "s3://utensils/") == S3Location(bucket: "utensils", prefix: ""))
        #expect(S3Location(parsing: "s3://utensils/site/photos/")?.prefix == "site/photos/")
        #expect(S3Location(parsing: "s3://utensils/site")?.description == "s3://utensils/site/")
        #expect(S3Location(parsing: "local") == nil)
        #expect(S3Location(parsing: "s3:///prefix") == nil)
        #expect(S3Location(parsing: "s3://Upper_Case") == nil)
    }
}
