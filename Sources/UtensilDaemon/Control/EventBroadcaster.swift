import Foundation
import Synchronization
import UtensilControlProtocol

/// Hands every ingest and rejection to the clients following `events`, and to the ingest
/// hooks. Each follower has a small buffer of its own: one that never reads loses old events,
/// and nobody waits for it (nor for a hook: ``HookRunner/submit(_:)`` only queues).
final class EventBroadcaster: Sendable {
    private let followers = Mutex<[UUID: AsyncStream<EventInfo>.Continuation]>([:])
    private let hooks: HookRunner?

    init(hooks: HookRunner? = nil) { self.hooks = hooks }

    func follow() -> AsyncStream<EventInfo> {
        let (stream, continuation) = AsyncStream.makeStream(of: EventInfo.self, bufferingPolicy: .bufferingNewest(256))
        let key = UUID()
        continuation.onTermination = { [weak self] _ in
            _ = self?.followers.withLock { $0.removeValue(forKey: key) }
        }
        followers.withLock { $0[key] = continuation }
        return stream
    }

    /// `rejectedAs`: for a rejection, the file's name in the rejected folder (for `on_reject`).
    func publish(_ event: EventInfo, rejectedAs: String? = nil) {
        for follower in followers.withLock({ Array($0.values) }) { follower.yield(event) }
        hooks?.submit(HookEvent(event: event, rejectedAs: rejectedAs))
    }

    func finishAll() {
        for follower in followers.withLock({ Array($0.values) }) { follower.finish() }
    }
}
