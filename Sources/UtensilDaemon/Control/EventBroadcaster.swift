import Foundation
import Synchronization
import UtensilCatalogModel
import UtensilControlProtocol

/// Hands every ingest and rejection to the clients following `events`, and to the ingest
/// hooks. Each follower has a bounded queue of its own (``followerBacklog`` events): one that
/// falls that far behind is cut off (its queue ends, ``FollowerQueue/fellBehind``), and
/// nobody waits for it (nor for a hook: ``HookRunner/submit(_:)`` only queues).
///
/// An event this host publishes goes to the hooks at once, and to the catalog's event log
/// (``pending``, appended by ``EventLogService``), which numbers it (`seq`); the followers are
/// handed each event of the log in `seq` order, this host's and (with a shared catalog) every
/// other host's, through ``deliver(_:)``. A follower that was away reads what it missed from
/// the log (``follower()``).
final class EventBroadcaster: Sendable {
    private let followers = Mutex<[UUID: FollowerQueue<EventInfo>]>([:])
    /// Events that may wait for one follower.
    static let followerBacklog = 256
    /// Events read from the log for a replay at a time.
    static let replayPage = 128
    private let hooks: HookRunner?
    /// This host's `host_name`, stamped on each event it publishes.
    let host: String?
    /// The catalog's event log, which replays read.
    let log: any CatalogEventLog
    /// This host's events not yet in the log.
    let pending = PendingEvents()

    init(log: any CatalogEventLog, hooks: HookRunner? = nil, host: String? = nil) {
        self.log = log
        self.hooks = hooks
        self.host = host
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

    /// A new follower that may first replay what it missed: the live events from now on,
    /// and the log's events after any `seq`.
    func follower() -> EventFollower {
        EventFollower(live: follow()) { [log] after in await Self.replay(log, after: after) }
    }

    /// A change on this host. `rejectedAs`: for a rejection, the file's name in the rejected
    /// folder (for `on_reject`).
    func publish(_ event: EventInfo, rejectedAs: String? = nil) {
        var event = event
        if event.host == nil { event.host = host }
        hooks?.submit(HookEvent(event: event, rejectedAs: rejectedAs))
        pending.add(event)
    }

    /// An event for every follower: from the log (numbered), or one that could not be
    /// numbered (the catalog unreachable, or another host's utensild that does not number).
    func deliver(_ event: EventInfo) {
        for follower in followers.withLock({ Array($0.values) }) { follower.send(event) }
    }

    func finishAll() {
        for follower in followers.withLock({ Array($0.values) }) { follower.finish() }
    }

    /// The events of `log` after `after`, as a follower is sent them.
    static func replay(_ log: any CatalogEventLog, after: Int64) async -> EventReplayPage {
        do {
            if let kept = try await log.eventRange(), after < kept.upperBound, after + 1 < kept.lowerBound {
                return .tooOld(oldestKept: kept.lowerBound)
            }
            return .events(try await log.events(after: after, limit: replayPage).compactMap(Self.event))
        } catch {
            return .unavailable("\(error)")
        }
    }

    /// The event a log entry holds, numbered; nil for an entry that is not an event.
    static func event(_ entry: CatalogEvent) -> EventInfo? {
        guard var event = try? LineFraming.decode(EventInfo.self, from: Data(entry.payload.utf8)) else { return nil }
        event.seq = entry.seq
        if event.host == nil { event.host = entry.host }
        return event
    }
}

/// This host's events waiting to be appended to the catalog's event log, oldest first; at
/// most ``limit`` (the oldest are dropped past it, counted in ``dropped``: the catalog has been
/// unreachable that long).
final class PendingEvents: Sendable {
    static let limit = 10_000
    private let state = Mutex<(events: [EventInfo], dropped: Int, finished: Bool)>(([], 0, false))
    /// A signal for each addition (coalesced); ends with ``finish()``.
    let added: AsyncStream<Void>
    private let signal: AsyncStream<Void>.Continuation

    init() {
        (added, signal) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    func add(_ event: EventInfo) {
        state.withLock { state in
            guard !state.finished else { return }
            state.events.append(event)
            if state.events.count > Self.limit {
                state.events.removeFirst(state.events.count - Self.limit)
                state.dropped += 1
            }
        }
        signal.yield()
    }

    /// Up to `count` of the oldest waiting events, taken out.
    func take(_ count: Int) -> [EventInfo] {
        state.withLock { state in
            let taken = Array(state.events.prefix(count))
            state.events.removeFirst(taken.count)
            return taken
        }
    }

    /// Events dropped since the last call.
    func takeDropped() -> Int {
        state.withLock { state in
            defer { state.dropped = 0 }
            return state.dropped
        }
    }

    /// Whether ``finish()`` was called (the daemon stops).
    var isFinished: Bool { state.withLock { $0.finished } }

    /// No more events: ``added`` ends (what waits can still be taken).
    func finish() {
        state.withLock { $0.finished = true }
        signal.finish()
    }
}
