import Foundation
import NIOCore
import Testing
import UtensilStorageS3
import UtensilTestSupport

/// The S3 client against a real SeaweedFS (``SeaweedServer``): objects put, read whole and by
/// range, listed page by page, deleted; create-only writes; multipart uploads; and each
/// refusal as the typed error that says what to do.
@Suite("The S3 client against SeaweedFS", .tags(.spawnsProcesses), .serialized)
struct S3ClientTests {
    static func bytes(_ count: Int, seed: UInt8) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31) &+ seed }
    }

    @Test("an object goes in, reads back whole and by range, and a delete of it is idempotent")
    func roundTrip() async throws {
        let server = try await SeaweedServer()
        defer { server.remove() }
        let client = try server.client()
        let bytes = Self.bytes(1000, seed: 3)
        let key = "photos/a b+c=é.jpeg"
        try await client.put(key, bytes, contentType: "image/jpeg")
        #expect(try await client.get(key) == bytes)
        #expect(try await client.get(key, range: 10...19) == Array(bytes[10...19]))
        #expect(try await client.get(key, range: 990...2000) == Array(bytes[990...]), "cut off at the end")
        #expect(try await client.get(key, range: 1000...1010) == [], "nothing past the end")
        let head = try #require(try await client.head(key))
        #expect(head.size == 1000)
        #expect(try await client.list(prefix: "photos/") == [key])
        try await client.delete(key)
        try await client.delete(key)
        #expect(try await client.head(key) == nil)
        await #expect(throws: S3Error.noSuchKey(key)) { try await client.get(key) }
    }

    @Test("an object streams whole or by range, with the whole object's size; a missing one is nil")
    func streaming() async throws {
        let server = try await SeaweedServer()
        defer { server.remove() }
        let client = try server.client()
        let bytes = Self.bytes(3_000_000, seed: 5)
        try await client.put("big.jpeg", bytes)
        func gathered(_ stream: S3Client.ObjectStream) async throws -> [UInt8] {
            var out: [UInt8] = []
            for try await chunk in stream.body { out += Array(buffer: chunk) }
            return out
        }
        let whole = try #require(try await client.stream("big.jpeg"))
        #expect(whole.size == 3_000_000)
        #expect(whole.length == 3_000_000)
        #expect(try await gathered(whole) == bytes)
        let part = try #require(try await client.stream("big.jpeg", range: 1_000_000...1_000_999))
        #expect(part.size == 3_000_000)
        #expect(part.length == 1000)
        #expect(try await gathered(part) == Array(bytes[1_000_000...1_000_999]))
        let past = try #require(try await client.stream("big.jpeg", range: 3_000_000...3_000_010))
        #expect(past.length == 0)
        #expect(try await gathered(past).isEmpty)
        #expect(try await client.stream("absent.jpeg") == nil)
        #expect(client.withTimeout(.seconds(2)).timeout == .seconds(2))
    }

    @Test("a create-only put refuses an existing key and leaves its bytes")
    func createOnly() async throws {
        let server = try await SeaweedServer()
        defer { server.remove() }
        let client = try server.client()
        try await client.put("k", [1, 2, 3], createOnly: true)
        await #expect(throws: S3Error.alreadyExists("k")) { try await client.put("k", [9], createOnly: true) }
        #expect(try await client.get("k") == [1, 2, 3])
        try await client.put("k", [4], createOnly: false)
        #expect(try await client.get("k") == [4])
    }

    @Test("a listing follows its pages to the last key")
    func pagedListing() async throws {
        let server = try await SeaweedServer()
        defer { server.remove() }
        let client = try server.client()
        let keys = (0..<7).map { "p/\($0).jpeg" }
        for key in keys { try await client.put(key, [1]) }
        try await client.put("q/other.jpeg", [1])
        #expect(try await client.list(prefix: "p/", pageSize: 2).sorted() == keys)
        #expect(try await client.list(prefix: "none/").isEmpty)
    }

    @Test("a body above the threshold goes up in parts and reads back the same; create-only holds")
    func multipart() async throws {
        let server = try await SeaweedServer()
        defer { server.remove() }
        let client = try server.client(multipartThreshold: 5 << 20, partSize: 5 << 20)
        let bytes = Self.bytes((11 << 20) + 123, seed: 7)
        try await client.put("big.png", bytes, createOnly: true)
        let read = try await client.get("big.png")
        #expect(read.count == bytes.count)
        #expect(read == bytes)
        let head = try #require(try await client.head("big.png"))
        #expect(head.etag.hasSuffix("-3"), "three parts: \(head.etag)")
        await #expect(throws: S3Error.alreadyExists("big.png")) { try await client.put("big.png", bytes, createOnly: true) }
    }

    @Test("an unfinished multipart upload is listed until aborted; a finished one is not listed")
    func unfinishedUploads() async throws {
        let server = try await SeaweedServer()
        defer { server.remove() }
        let client = try server.client(multipartThreshold: 5 << 20, partSize: 5 << 20)
        try await client.put("site/done.png", Self.bytes(6 << 20, seed: 1))
        #expect(try await client.multipartUploads(prefix: "site/").isEmpty, "a completed upload leaves nothing")

        let id = try await client.startMultipartUpload("site/left & behind.png")
        let left = try await client.multipartUploads(prefix: "site/")
        #expect(left.map(\.key) == ["site/left & behind.png"])
        #expect(left.map(\.uploadID) == [id])
        #expect(try await client.multipartUploads(prefix: "other/").isEmpty)
        let upload = try #require(left.first)
        try await client.abort(upload)
        try await client.abort(upload)
        #expect(try await client.multipartUploads(prefix: "site/").isEmpty)
        #expect(try await client.head("site/left & behind.png") == nil)
    }

    @Test("wrong keys, a missing bucket and a silent endpoint are each told apart")
    func refusals() async throws {
        let server = try await SeaweedServer()
        defer { server.remove() }
        let wrongSecret = S3Credentials(accessKeyID: server.credentials.accessKeyID, secretAccessKey: "not-the-secret")
        let refused = try server.client(credentials: wrongSecret)
        await #expect {
            try await refused.checkBucket()
        } throws: { error in
            guard case .credentialsRefused(_, let code, _) = error as? S3Error else { return false }
            return code == "SignatureDoesNotMatch"
        }
        let unknownKey = try server.client(credentials: S3Credentials(accessKeyID: "nobody", secretAccessKey: "x"))
        await #expect {
            try await unknownKey.put("k", [1])
        } throws: { error in
            if case .credentialsRefused = error as? S3Error { return true }
            return false
        }
        let missing = try server.client(bucket: "no-such-bucket")
        await #expect(throws: S3Error.noSuchBucket(endpoint: server.endpoint, bucket: "no-such-bucket")) { try await missing.checkBucket() }
        await #expect(throws: S3Error.noSuchBucket(endpoint: server.endpoint, bucket: "no-such-bucket")) { try await missing.put("k", [1]) }

        let silent = try S3Client(
            endpoint: "http://127.0.0.1:\(try LoopbackSocket.freePort())", bucket: "b", region: "us-east-1",
            credentials: server.credentials, timeout: .seconds(5))
        await #expect {
            try await silent.checkBucket()
        } throws: { error in
            guard let error = error as? S3Error, case .unreachable = error else { return false }
            return error.isTransient && "\(error)".contains("storage_endpoint")
        }
    }

    /// The store waits for a bucket in its own way (drops retried once it answers): a request
    /// must not sit out its whole time limit trying to connect to a server that is down.
    @Test("a refused connection fails a request at once, not at the end of its time limit")
    func refusedConnectionFailsAtOnce() async throws {
        let closed = try S3Client(
            endpoint: "http://127.0.0.1:\(try LoopbackSocket.freePort())", bucket: "b", region: "us-east-1",
            credentials: S3Credentials(accessKeyID: "id", secretAccessKey: "secret"), timeout: .seconds(600))
        let outcome = await withTaskGroup(of: String.self) { group in
            group.addTask {
                do throws(S3Error) {
                    try await closed.put("k", [1, 2, 3], createOnly: true)
                    return "stored"
                } catch {
                    if case .unreachable = error { return "unreachable" }
                    return "\(error)"
                }
            }
            group.addTask {
                // A deadline, far shorter than the request's limit, not a synchronisation.
                try? await Task.sleep(for: .seconds(30))
                return "still trying after 30 s"
            }
            let first = await group.next() ?? "nothing"
            group.cancelAll()
            return first
        }
        #expect(outcome == "unreachable")
    }

    @Test("a stopped server is unreachable, and answers again once started")
    func outage() async throws {
        let server = try await SeaweedServer()
        defer { server.remove() }
        let client = try server.client(timeoutSeconds: 3)
        try await client.put("kept", [1, 2])
        server.stop()
        await #expect {
            try await client.get("kept")
        } throws: { error in
            if case .unreachable = error as? S3Error { return true }
            return false
        }
        try await server.start()
        // The gateway answers before the volume server has its volumes back: until then a read
        // is a transient 500, which a caller retries.
        let deadline = ContinuousClock.now + .seconds(60)
        var kept = try await Self.readUnlessTransient("kept", client)
        while kept == nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))  // Polling with a deadline.
            kept = try await Self.readUnlessTransient("kept", client)
        }
        #expect(kept == [1, 2], "the object is read again within 60 s of the restart")
    }

    /// The bytes of `key`, or nil while the server answers with a failure that may pass.
    private static func readUnlessTransient(_ key: String, _ client: S3Client) async throws -> [UInt8]? {
        do {
            return try await client.get(key)
        } catch {
            if error.isTransient { return nil }
            throw error
        }
    }

    @Test("an endpoint that is not an http(s) URL is refused when the client is made")
    func invalidEndpoint() {
        #expect(throws: S3Error.invalidEndpoint("s3.example.org")) {
            try S3Client(endpoint: "s3.example.org", bucket: "b", region: "r", credentials: S3Credentials(accessKeyID: "a", secretAccessKey: "s"))
        }
    }
}
