import Dispatch
import Foundation
import UtensilStorageS3

/// Object-storage figures against a running S3-compatible server (bench/s3.py starts a
/// SeaweedFS on loopback): `objects` PUTs of `size` bytes each (create-only, as a staged
/// rendition is put), then as many whole GETs, ranged GETs of 64 KiB and DELETEs, one request
/// at a time and then `parallel` at once; MB/s and per-request p50/p99 for each, and what one
/// rendition costs in requests and bytes (stage, publish, read, delete).
struct S3Throughput {
    let endpoint: String
    let bucket: String
    let credentialsFile: String
    let objects: Int
    let size: Int
    let parallel: Int

    func run() throws -> [String: Any] {
        let credentials = try S3CredentialsSource.load(file: credentialsFile)
        let client = try S3Client(endpoint: endpoint, bucket: bucket, region: "us-east-1", credentials: credentials)
        let objects = self.objects, size = self.size, parallel = self.parallel
        return try Self.blocking { () async throws -> [String: Any] in
            try await client.checkBucket()
            let body = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
            let run = UUID().uuidString
            var figures: [String: Any] = ["objects": objects, "bytes": size, "parallel": parallel]
            for (label, width) in [("serial", 1), ("parallel", parallel)] {
                let keys = (0..<objects).map { "bench/\(run)/\(label)/\($0).jpeg" }
                figures[label] = [
                    "put": try await Self.phase(keys, width: width, bytes: size) { try await client.put($0, body, createOnly: true) },
                    "get": try await Self.phase(keys, width: width, bytes: size) { _ = try await client.get($0) },
                    "get_range_64k": try await Self.phase(keys, width: width, bytes: min(size, 65_536)) {
                        _ = try await client.get($0, range: 0...65_535)
                    },
                    "delete": try await Self.phase(keys, width: width, bytes: 0) { try await client.delete($0) },
                ]
            }
            // A rendition's life in requests: a new utensil's ingest (PUT under its live key), a
            // replacement's (stage: PUT; publish: GET staged, PUT live, DELETE staged), each
            // read (GET), its delete (DELETE).
            figures["requests_per_rendition"] = ["ingest": 1, "replace": 4, "read": 1, "delete": 1]
            figures["bytes_per_rendition"] = ["ingest_up": size, "replace_up": 2 * size, "replace_down": size]
            return figures
        }
    }

    /// `operation` on every key, `width` at a time: MB/s over the phase, and each request's
    /// p50 and p99 in milliseconds.
    static func phase(
        _ keys: [String], width: Int, bytes: Int, _ operation: @escaping @Sendable (String) async throws -> Void
    ) async throws -> [String: Double] {
        let started = Measure.wallms()
        var latencies: [Double] = []
        try await withThrowingTaskGroup(of: Double.self) { group in
            var next = 0
            func add() {
                let key = keys[next]
                next += 1
                group.addTask {
                    let start = Measure.wallms()
                    try await operation(key)
                    return Measure.wallms() - start
                }
            }
            while next < min(width, keys.count) { add() }
            while let latency = try await group.next() {
                latencies.append(latency)
                if next < keys.count { add() }
            }
        }
        let seconds = (Measure.wallms() - started) / 1000
        return [
            "mb_per_s": Double(bytes * keys.count) / 1_048_576 / max(seconds, 1e-9),
            "p50_ms": Measure.percentile(latencies, 50), "p99_ms": Measure.percentile(latencies, 99),
        ]
    }

    /// Runs `body` to its end from synchronous code (utensil-bench's main is synchronous).
    static func blocking<T>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        Task {
            do { box.result = .success(try await body()) } catch { box.result = .failure(error) }
            done.signal()
        }
        done.wait()
        return try box.result!.get()
    }
}

/// The result of a task, handed to the thread that waited for it (written before the
/// semaphore is signalled, read after it is waited for).
private final class ResultBox<T>: @unchecked Sendable {
    var result: Result<T, any Error>?
}
