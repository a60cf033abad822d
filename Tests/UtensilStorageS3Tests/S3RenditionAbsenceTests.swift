import Foundation
import Testing
import UtensilCore
import UtensilStorage
import UtensilStorageS3
import UtensilTestSupport

/// A thumbnail or grid square the bucket has not (a utensil made before squares, or whose
/// square is not made yet) remembered by ``S3RenditionCache`` for its time to live: asked of
/// the bucket once, not at each view of a grid; forgotten at once when this host publishes
/// it; at most the cache's bound of absences held.
@Suite("S3RenditionCache's absences against SeaweedFS", .tags(.spawnsProcesses), .serialized)
struct S3RenditionAbsenceTests {
    static let location = S3Location(bucket: "utensils", prefix: "site")

    static func storage(
        _ server: SeaweedServer, hostName: String = "kitchen-1", timeToLive: Duration = .seconds(3600),
        maxAbsent: Int = S3RenditionCache.defaultMaxAbsent
    ) throws -> S3Storage {
        S3Storage(
            client: try server.client(timeoutSeconds: 2), location: location, hostName: hostName,
            cache: S3RenditionCache(timeToLive: timeToLive, maxAbsent: maxAbsent))
    }

    /// A utensil of an upgraded site: its original and thumbnail, no grid square.
    static func olderUtensil(in storage: S3Storage) async throws -> StagedRenditions {
        let staged = try await storage.stage([.original: [1, 2, 3], .thumbnail: [7, 7, 7]], of: UUID(), originalExtension: "jpeg")
        try await storage.publish(staged)
        return staged
    }

    /// What the gallery asks of a picture: its size and version, through the probing copy.
    static func status(_ key: RenditionKey, of storage: S3Storage, askedAs version: String? = nil) async throws(StorageError) -> RenditionStatus {
        try await storage.forProbes().status(of: key, askedAs: version)
    }

    @Test("a missing grid square is asked of the bucket once, then answered from memory")
    func missingSquareAskedOnce() async throws {
        let server = try await SeaweedServer()
        defer { server.remove() }
        let storage = try Self.storage(server)
        let square = try await Self.olderUtensil(in: storage).key(.square)
        let before = try server.requests("GET", code: 404)
        for _ in 0..<5 {
            await #expect(throws: StorageError.notFound(square)) { try await Self.status(square, of: storage) }
        }
        // A GET of a missing key of our own: once the server counted it, it counted the views'.
        await #expect(throws: S3Error.self) { _ = try await server.client().get("site/squares/\(UUID().uuidString).jpeg") }
        try await Poll.eventually(seconds: 10, "one GET for five views, and ours") { (try? server.requests("GET", code: 404)) == before + 2 }
        #expect(storage.cache.absentCount == 1)

        server.stop()
        await #expect(throws: StorageError.notFound(square), "not found, the bucket not asked") {
            try await Self.status(square, of: storage)
        }
        await #expect(throws: StorageError.self, "asked under another version: the bucket is asked again") {
            do throws(StorageError) {
                _ = try await Self.status(square, of: storage, askedAs: "v=2")
            } catch .notFound {
                return
            }
        }
    }

    @Test("this host's publish of the square forgets its absence at once; another host's after the time to live")
    func publishForgetsTheAbsence() async throws {
        let server = try await SeaweedServer()
        defer { server.remove() }
        let here = try Self.storage(server)
        let older = try await Self.olderUtensil(in: here)
        let square = older.key(.square)
        await #expect(throws: StorageError.notFound(square)) { try await Self.status(square, of: here) }

        // `rethumb --missing` here: the square staged and published.
        try await here.publish(try await here.stage([.square: [5, 5, 5, 5]], of: older.utensil, originalExtension: "jpeg"))
        #expect(try await Self.status(square, of: here).size == 4, "seen at the next request")
        #expect(here.cache.absentCount == 0)

        // Another host's rethumb: this host sees it once its absence is older than the time to live.
        let other = try await Self.olderUtensil(in: here)
        let brief = try Self.storage(server, timeToLive: .milliseconds(200))
        let elsewhere = try Self.storage(server, hostName: "kitchen-2")
        await #expect(throws: StorageError.notFound(other.key(.square))) { try await Self.status(other.key(.square), of: here) }
        await #expect(throws: StorageError.notFound(other.key(.square))) { try await Self.status(other.key(.square), of: brief) }
        try await elsewhere.publish(try await elsewhere.stage([.square: [6, 6]], of: other.utensil, originalExtension: "jpeg"))
        await #expect(throws: StorageError.notFound(other.key(.square)), "remembered for its time to live") {
            try await Self.status(other.key(.square), of: here)
        }
        let deadline = ContinuousClock.now + .seconds(30)
        var seen: RenditionStatus?
        while seen == nil, ContinuousClock.now < deadline {
            do throws(StorageError) {
                seen = try await Self.status(other.key(.square), of: brief)
            } catch .notFound {
                try await Task.sleep(for: .milliseconds(50))  // Polling with a deadline.
            }
        }
        #expect(seen?.size == 2, "another host's square is seen once the absence is older than the time to live")
    }

    @Test("at most the bound of absences is held, the oldest forgotten first")
    func boundedAbsences() async throws {
        let server = try await SeaweedServer()
        defer { server.remove() }
        let storage = try Self.storage(server, maxAbsent: 3)
        var squares: [RenditionKey] = []
        for _ in 0..<5 { squares.append(try await Self.olderUtensil(in: storage).key(.square)) }
        for square in squares {
            await #expect(throws: StorageError.notFound(square)) { try await Self.status(square, of: storage) }
            #expect(storage.cache.absentCount <= 3)
        }
        #expect(storage.cache.absentCount == 3)

        server.stop()
        for square in squares[2...] {
            await #expect(throws: StorageError.notFound(square), "the newest held") { try await Self.status(square, of: storage) }
        }
        for square in squares[..<2] {
            await #expect(throws: StorageError.self, "the oldest forgotten: the bucket is asked") {
                do throws(StorageError) {
                    _ = try await Self.status(square, of: storage)
                } catch .notFound {
                    return
                }
            }
        }
    }
}
