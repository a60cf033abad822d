import AsyncHTTPClient
import Foundation
import NIOCore
import Synchronization
import UtensilStorage

/// Hands an S3 answer's body to a consumer (the gallery's response) chunk by chunk, as it
/// arrives, the next chunk read from the server only once the consumer has taken the last:
/// a slow reader slows the server's answer down rather than filling memory.
///
/// The body is read by a task of its own, so that the answer can be given up while the
/// consumer is still blocked (a phone that stopped reading): when nothing moves for
/// ``stallLimit`` (no chunk from the server, or the consumer not done with one), the answer
/// is dropped, which closes its connection to the server, and the stream ends with
/// ``S3Error/unreachable(endpoint:reason:)``. A consumer that throws (the client went away)
/// drops the answer at once.
struct S3BodyPump {
    /// How long nothing may move before the answer is given up.
    var stallLimit: Duration
    /// For messages: the server and the object.
    var endpoint: String
    var key: String

    /// Passes `body` to `consume`, less its first `skip` bytes and at most `limit` bytes
    /// (a server that ignored a `Range` sends the whole object).
    func pump(
        _ body: HTTPClientResponse.Body, skip: Int64, limit: Int64, into consume: ([UInt8]) async throws -> Void
    ) async throws {
        let (chunks, chunkSink) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
        let (taken, takenSink) = AsyncStream<Void>.makeStream()
        let moved = Moved()
        let stalled = S3Error.unreachable(
            endpoint: endpoint, reason: "GET \(key): nothing moved for \(stallLimit); the answer was given up")
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                var takenIterator = taken.makeAsyncIterator()
                var toSkip = skip, left = limit
                do {
                    for try await buffer in body {
                        moved.now()
                        var bytes = Array(buffer: buffer)
                        if toSkip > 0 {
                            let dropped = Int(min(toSkip, Int64(bytes.count)))
                            bytes.removeFirst(dropped)
                            toSkip -= Int64(dropped)
                        }
                        if Int64(bytes.count) > left { bytes.removeLast(bytes.count - Int(left)) }
                        left -= Int64(bytes.count)
                        if !bytes.isEmpty {
                            chunkSink.yield(bytes)
                            // Nil: the consumer is gone or stalled; leaving drops the answer.
                            guard await takenIterator.next() != nil else { return }
                        }
                        if left == 0 { break }
                    }
                    chunkSink.finish()
                } catch {
                    chunkSink.finish(throwing: S3Error.unreachable(endpoint: endpoint, reason: "GET \(key): the answer broke off: \(error)"))
                }
            }
            group.addTask {
                let tick = min(stallLimit, .seconds(1))
                while true {
                    try await Task.sleep(for: tick)
                    if moved.idle > stallLimit {
                        chunkSink.finish(throwing: stalled)
                        takenSink.finish()
                        return
                    }
                }
            }
            do {
                for try await bytes in chunks {
                    try await consume(bytes)
                    moved.now()
                    takenSink.yield(())
                }
            } catch {
                takenSink.finish()
                group.cancelAll()
                throw error
            }
            takenSink.finish()
            group.cancelAll()
        }
    }
}

/// When the pump last moved a chunk.
private final class Moved: Sendable {
    private let last = Mutex(ContinuousClock.now)

    func now() { last.withLock { $0 = .now } }

    var idle: Duration { last.withLock { ContinuousClock.now - $0 } }
}
