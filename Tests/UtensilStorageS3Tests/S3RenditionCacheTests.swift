import Foundation
import Testing
import UtensilCore
import UtensilStorage
import UtensilStorageS3
import UtensilTestSupport

/// The bucket's thumbnails and grid squares kept in memory (what the gallery's grid reads):
/// read again without the bucket, never stale after this host's replacement, never more than
/// the cache's bound in bytes.
@Suite("S3RenditionCache against SeaweedFS", .tags(.spawnsProcesses), .serialized)
struct S3RenditionCacheTests {
    static let location = S3Location(bucket: "utensils", prefix: "site")

    /// A storage whose cache trusts an entry long enough for any test's steps.
    static func storage(_ server: SeaweedServer, maxBytes: Int = S3RenditionCache.defaultMaxBytes) throws -> S3Storage {
        S3Storage(
            client: try server.client(timeoutSeconds: 2), location: location, hostName: "kitchen-1",
            cache: S3RenditionCache(maxBytes: maxBytes, timeToLive: .seconds(3600)))
    }

    /// What the gallery does for one picture: the size and version (through the probing copy,
    /// as the store asks), then the bytes of `range`.
    static func serve(_ key: RenditionKey, of storage: S3Storage, range: Range<Int64>? = nil) async throws -> (RenditionStatus, [UInt8]) {
        let status = try await storage.forProbes().status(of: key)
        var bytes: [UInt8] = []
        try await storage.stream(key, range: range ?? 0..<status.size) { bytes += $0 }
        return (status, bytes)
    }

    @Test("a thumbnail and a grid square read again are answered with the bucket stopped")
    func servedWithoutTheBucket() async throws {
        let server = try await SeaweedServer()
        defer { server.remove() }
        let storage = try Self.storage(server)
        let thumbnail = (0..<3000).map { UInt8(truncatingIfNeeded: $0) }, square = [UInt8](repeating: 9, count: 7000)
        let staged = try await storage.stage([.original: [1, 2, 3], .thumbnail: thumbnail, .square: square], of: UUID(), originalExtension: "png")
        try await storage.publish(staged)
        let (first, firstBytes) = try await Self.serve(staged.key(.thumbnail), of: storage)
        _ = try await Self.serve(staged.key(.square), of: storage)
        #expect(firstBytes == thumbnail)
        #expect(storage.cache.count == 2)

        server.stop()
        let (again, againBytes) = try await Self.serve(staged.key(.thumbnail), of: storage)
        #expect(again == first, "the same size and ETag")
        #expect(againBytes == thumbnail)
        let (_, part) = try await Self.serve(staged.key(.square), of: storage, range: 10..<20)
        #expect(part == Array(square[10..<20]), "a range is cut from the bytes held")
        await #expect(throws: StorageError.self, "an original is never kept") {
            _ = try await storage.status(of: staged.key(.original))
        }
    }

    @Test("a replaced photo's thumbnail is fresh at once on the host that replaced it")
    func replacementIsFresh() async throws {
        let server = try await SeaweedServer()
        defer { server.remove() }
        let storage = try Self.storage(server)
        let id = UUID()
        let first = try await storage.stage([.original: [1], .thumbnail: [1, 1, 1]], of: id, originalExtension: "jpeg")
        try await storage.publish(first)
        let (old, oldBytes) = try await Self.serve(first.key(.thumbnail), of: storage)
        #expect(oldBytes == [1, 1, 1])

        // A replacement: the live renditions taken away, the new ones published.
        let gone = try await storage.unpublish([first.key(.original), first.key(.thumbnail)])
        try await storage.discard(gone)
        let second = try await storage.stage([.original: [2], .thumbnail: [2, 2, 2, 2]], of: id, originalExtension: "jpeg")
        try await storage.publish(second)
        let (new, newBytes) = try await Self.serve(second.key(.thumbnail), of: storage)
        #expect(newBytes == [2, 2, 2, 2])
        #expect(new.version != old.version)

        // Deleted (purged from the trash): not found, not served from memory.
        try await storage.delete(second.key(.thumbnail))
        await #expect(throws: StorageError.notFound(second.key(.thumbnail))) {
            _ = try await storage.status(of: second.key(.thumbnail))
        }
    }

    @Test("a photo replaced on another host is read again when asked under its new version")
    func replacedElsewhereAskedAnew() async throws {
        let server = try await SeaweedServer()
        defer { server.remove() }
        let here = try Self.storage(server)
        let elsewhere = S3Storage(client: try server.client(timeoutSeconds: 2), location: Self.location, hostName: "kitchen-2")
        let id = UUID()
        let first = try await elsewhere.stage([.original: [1], .thumbnail: [1, 1, 1]], of: id, originalExtension: "jpeg")
        try await elsewhere.publish(first)
        let key = first.key(.thumbnail)
        let old = try await here.forProbes().status(of: key, askedAs: "v=1")

        let gone = try await elsewhere.unpublish([first.key(.original), key])
        try await elsewhere.discard(gone)
        try await elsewhere.publish(try await elsewhere.stage([.original: [2], .thumbnail: [2, 2, 2, 2]], of: id, originalExtension: "jpeg"))
        #expect(try await here.forProbes().status(of: key, askedAs: "v=1") == old, "the same version: kept for its time to live")
        let new = try await here.forProbes().status(of: key, askedAs: "v=2")
        #expect(new.version != old.version && new.size == 4)
        var bytes: [UInt8] = []
        try await here.stream(key, range: 0..<new.size) { bytes += $0 }
        #expect(bytes == [2, 2, 2, 2])
    }

    @Test("the cache never holds more than its bound in bytes, the least recently used dropped")
    func boundedInBytes() async throws {
        let server = try await SeaweedServer()
        defer { server.remove() }
        let bound = 64 << 10
        let storage = try Self.storage(server, maxBytes: bound)
        var keys: [RenditionKey] = []
        for index in 0..<20 {
            let staged = try await storage.stage(
                [.original: [UInt8(index)], .thumbnail: [UInt8](repeating: UInt8(index), count: 5 << 10)], of: UUID(),
                originalExtension: "jpeg")
            try await storage.publish(staged)
            keys.append(staged.key(.thumbnail))
        }
        for key in keys {
            _ = try await Self.serve(key, of: storage)
            #expect(storage.cache.bytes <= bound)
        }
        #expect(storage.cache.count == bound / (5 << 10))
        #expect(storage.cache.bytes == storage.cache.count * (5 << 10))

        server.stop()
        let (_, last) = try await Self.serve(keys[19], of: storage)
        #expect(last == [UInt8](repeating: 19, count: 5 << 10), "the most recent is held")
        await #expect(throws: StorageError.self, "the oldest was dropped") {
            _ = try await storage.status(of: keys[0])
        }
    }
}
