import Foundation
import Synchronization
import UtensilControlProtocol

/// Hands every ingest and rejection to the clients following `events`, and to the ingest
/// hooks. Each follower has a bounded queue of its own (``followerBacklog`` events): one that
/// falls that far behind is cut off (its queue ends, ``FollowerQueue/fellBehind``), and
/// nobody waits for it (nor for a hook: ``HookRunner/submit(_:)`` only queues).
///
/// With a shared catalog, this host's events are also queued for the other hosts
/// (``outgoing``, sent by ``CatalogFeedService``), and theirs arrive through
/// ``deliverRemote(_:)``: to the followers only, never to this host's hooks.
final class EventBroadcaster: Sendable {
    private let followers = Mutex<[UUID: FollowerQueue<EventInfo>]>([:])
    /// Events that may wait for one follower.
    static let followerBacklog = 256
    private let hooks: HookRunner?
    /// This host's `host_name`, stamped on each event it publishes.
    let host: String?
    /// This host's events for the other hosts, oldest dropped first when nobody sends them
    /// (the catalog unreachable).
    let outgoing: AsyncStream<EventInfo>
    private let outgoingContinuation: AsyncStream<EventInfo>.Continuation?

    /// - Parameters:
    ///   - host: stamped on this host's events.
    ///   - sharesEvents: whether this host's events are queued for the other hosts (a shared catalog).
    init(hooks: HookRunner? = nil, host: String? = nil, sharesEvents: Bool = false) {
        self.hooks = hooks
        self.host = host
        let (stream, continuation) = AsyncStream.makeStream(of: EventInfo.self, bufferingPolicy: .bufferingNewest(1024))
        outgoing = stream
        if sharesEvents {
            outgoingContinuation = continuation
        } else {
            outgoingContinuation = nil
            continuation.finish()
        }
    }

    /// A new follower: every event from now on, until it falls ``followerBacklog`` behind,
    /// stops reading or the daemon stops.
    func follow() -> FollowerQueue<EventInfo> {
        let queue = FollowerQueue<EventInfo>(limit: Self.followerBacklog)
        let key = UUID()
        queue.onTermination { [weak self] in
            _ = self?.followers.withLock { $0.removeValue(forKey: key) }
        }
        followers.withLock { $0[key] = queue }
        return queue
    }

    /// A change on this host. `rejectedAs`: for a rejection, the file's name in the rejected
    /// folder (for `on_reject`).
    func publish(_ event: EventInfo, rejectedAs: String? = nil) {
        var event = event
        if event.host == nil { event.host = host }
        deliver(event)
        hooks?.submit(HookEvent(event: event, rejectedAs: rejectedAs))
        outgoingContinuation?.yield(event)
    }

    /// No more events for the other hosts: ``outgoing`` ends once drained.
    func finishOutgoing() {
        outgoingContinuation?.finish()
    }

    /// Another host's change: shown to the followers (`events`, the gallery's live updates);
    /// its hooks ran on that host.
    func deliverRemote(_ event: EventInfo) {
        deliver(event)
    }

    private func deliver(_ event: EventInfo) {
        for follower in followers.withLock({ Array($0.values) }) { follower.send(event) }
    }

    func finishAll() {
        for follower in followers.withLock({ Array($0.values) }) { follower.finish() }
    }
}
