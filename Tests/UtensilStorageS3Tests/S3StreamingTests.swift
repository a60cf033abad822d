import AsyncHTTPClient
import Foundation
import Glibc
import Testing
import UtensilCore
import UtensilStorage
import UtensilStorageS3
import UtensilTestSupport

/// A rendition read from a bucket as one streamed GET (what the gallery serves): the bytes and
/// ranges `read` gives, and a reader that stops taking them or goes away releases the server's
/// connection rather than holding it or the object.
@Suite("S3Storage streamed reads against SeaweedFS", .tags(.spawnsProcesses), .serialized)
struct S3StreamingTests {
    static let location = S3Location(bucket: "utensils", prefix: "site")

    /// A bucket with one 8 MiB original, read through a client of its own (so that the
    /// connections counted are this read's only).
    struct Fixture {
        let server: SeaweedServer
        let http: HTTPClient
        let storage: S3Storage
        let key: RenditionKey
        let bytes: [UInt8]
        /// The connections to the server this process had before the read (the server's
        /// readiness check's, through the shared client).
        let before: Set<String>

        init(stallLimit: Duration = .seconds(30)) async throws {
            server = try await SeaweedServer()
            bytes = (0..<(8 << 20)).map { _ in UInt8.random(in: 0...255) }
            key = RenditionKey(.original, of: UUID(), originalExtension: "jpeg")
            http = HTTPClient(eventLoopGroupProvider: .singleton)
            let client = try S3Client(
                endpoint: server.endpoint, bucket: server.bucket, region: "us-east-1", credentials: server.credentials,
                httpClient: http)
            // Put through a client closed before the read, so that no connection of its stays.
            let writing = HTTPClient(eventLoopGroupProvider: .singleton)
            let writer = try S3Client(
                endpoint: server.endpoint, bucket: server.bucket, region: "us-east-1", credentials: server.credentials,
                httpClient: writing)
            try await writer.put(S3Storage(client: writer, location: S3StreamingTests.location, hostName: "kitchen-1").objectKey(key), bytes)
            try await writing.shutdown()
            var storage = S3Storage(client: client, location: S3StreamingTests.location, hostName: "kitchen-1")
            storage.streamStallLimit = stallLimit
            self.storage = storage
            before = S3StreamingTests.establishedConnections(toPort: server.s3Port)
        }

        func close() async throws {
            try await http.shutdown()
            server.remove()
        }

        /// This process's established TCP connections to the server's S3 port opened since.
        func connections() -> Int {
            S3StreamingTests.establishedConnections(toPort: server.s3Port).subtracting(before).count
        }
    }

    @Test("a streamed read gives what read gives: whole, ranges, past the end, none")
    func sameBytes() async throws {
        let fixture = try await Fixture()
        let storage = fixture.storage
        var whole: [UInt8] = []
        var chunks = 0
        try await storage.stream(fixture.key, range: nil) { whole += $0; chunks += 1 }
        #expect(whole == fixture.bytes)
        #expect(chunks > 1, "the body comes as it arrives, not gathered")
        for range: Range<Int64> in [1000..<2_000_000, 0..<1, 8_000_000..<9_000_000, Int64(8 << 20)..<Int64(9 << 20), 5..<5] {
            var part: [UInt8] = []
            try await storage.stream(fixture.key, range: range) { part += $0 }
            #expect(part == (try await storage.read(fixture.key, range: range)), "range \(range)")
        }
        let missing = RenditionKey(.thumbnail, of: UUID(), originalExtension: "jpeg")
        await #expect(throws: StorageError.notFound(missing)) { try await storage.stream(missing, range: nil) { _ in } }
        try await fixture.close()
    }

    @Test("a reader that stops taking chunks has the GET given up and its connection closed")
    func stalledReader() async throws {
        let fixture = try await Fixture(stallLimit: .seconds(1))
        var taken = 0
        var connectedWhileTaking = 0
        var released = false
        await #expect(throws: StorageError.self) {
            try await fixture.storage.stream(fixture.key, range: nil) { bytes in
                taken += bytes.count
                guard taken == bytes.count else { return }
                // The first chunk is held, as by a client that reads nothing: the server's
                // connection must be closed meanwhile, not kept for this reader.
                connectedWhileTaking = fixture.connections()
                let deadline = ContinuousClock.now + .seconds(30)
                while ContinuousClock.now < deadline {
                    if fixture.connections() == 0 { released = true; break }
                    try await Task.sleep(for: .milliseconds(50))
                }
            }
        }
        #expect(connectedWhileTaking == 1)
        #expect(released, "the GET is still open")
        #expect(taken < fixture.bytes.count / 4, "the object was read on although nobody took it")
        try await fixture.close()
    }

    @Test("a reader that goes away mid-original closes the connection at once")
    func vanishedReader() async throws {
        struct Gone: Error {}
        let fixture = try await Fixture()
        var taken = 0
        await #expect(throws: Gone.self) {
            try await fixture.storage.stream(fixture.key, range: nil) { bytes in
                taken += bytes.count
                if taken > 1 << 20 { throw Gone() }
            }
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while fixture.connections() > 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(fixture.connections() == 0, "the GET is still open")
        #expect(taken < fixture.bytes.count)
        try await fixture.close()
    }

    /// A file of /proc read to its end (its size says 0, and a single read gets one page).
    static func wholeFile(_ path: String) -> [UInt8] {
        guard let file = fopen(path, "r") else { return [] }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count <= 0 { return bytes }
            bytes += buffer[..<count]
        }
    }

    /// Established TCP connections of this process to `port` (its socket inodes in
    /// `/proc/self/fd` matched against `/proc/self/net/tcp`).
    static func establishedConnections(toPort port: Int) -> Set<String> {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        let inodes = Set(fds.compactMap { fd -> String? in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)"),
                  target.hasPrefix("socket:[") else { return nil }
            return String(target.dropFirst("socket:[".count).dropLast())
        })
        let table = String(decoding: wholeFile("/proc/self/net/tcp"), as: UTF8.self)
        let remotePort = String(format: ":%04X", port)
        return Set(table.split(separator: "\n").dropFirst().compactMap { line -> String? in
            let fields = line.split(separator: " ")
            guard fields.count > 9, fields[2].hasSuffix(remotePort), fields[3] == "01", inodes.contains(String(fields[9])) else { return nil }
            return String(fields[9])
        })
    }
}
