import Foundation
import Synchronization
import UtensilControlProtocol

/// Hands every ingest and rejection to the clients following `events`. Each follower has a
/// small buffer of its own: one that never reads loses old events, and nobody waits for it.
final class EventBroadcaster: Sendable {
    private let followers = Mutex<[UUID: AsyncStream<EventInfo>.Continuation]>([:])

    func follow() -> AsyncStream<EventInfo> {
        let (stream, continuation) = AsyncStream.makeStream(of: EventInfo.self, bufferingPolicy: .bufferingNewest(256))
        let key = UUID()
        continuation.onTermination = { [weak self] _ in
            _ = self?.followers.withLock { $0.removeValue(forKey: key) }
        }
        followers.withLock { $0[key] = continuation }
        return stream
    }

    func publish(_ event: EventInfo) {
        for follower in followers.withLock({ Array($0.values) }) { follower.yield(event) }
    }

    func finishAll() {
        for follower in followers.withLock({ Array($0.values) }) { follower.finish() }
    }
}
