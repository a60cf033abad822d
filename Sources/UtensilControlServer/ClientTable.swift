import NIOCore
import Synchronization

/// The connected clients, against the limits — and what each is doing and who it is, so that
/// neither a full table nor one greedy user ever locks an operator out.
///
/// Three rules, in this order:
/// - one user (peer uid) holds at most `perUser` connections, root and the daemon's own user
///   excepted; past it, that user's longest-*waiting* connection makes room, or the newcomer
///   is turned away;
/// - the last `reserved` slots are only for root and the daemon's own user, so that however
///   many users fill the rest, an administrator still gets in;
/// - at the limit, a newcomer is admitted by closing the connection that has been *waiting*
///   longest for its next complete request (a slow-loris dribbling bytes of a line it never
///   finishes, or a client that connected and said nothing). Connections running a request
///   or following `events` are never closed for room; only when every slot is busy that way
///   is the newcomer turned away with `busy`.
final class ClientTable: Sendable {
    enum Activity: Sendable {
        /// Between requests (or mid-line) since this instant.
        case waiting(since: NIODeadline)
        /// A request is being answered.
        case busy
        /// Following `events`.
        case following
    }

    enum Admission: Sendable, Equatable {
        case admitted(id: Int)
        /// The table (or what it leaves for this user) is full of active connections.
        case refused
        /// This user already holds `perUser` active connections.
        case refusedForUser
    }

    /// How many connections, and how many each user.
    struct Limits: Sendable {
        var total: Int
        var perUser: Int
        /// Slots only root and the daemon's own user may take.
        var reserved: Int
        /// Root and the daemon's own user: exempt from `perUser`, and may take `reserved`.
        var privileged: @Sendable (UInt32) -> Bool
    }

    private struct Slot {
        var channel: any Channel
        var uid: UInt32
        var activity: Activity
    }

    private struct State {
        var slots: [Int: Slot] = [:]
        var nextID = 0

        /// The connection that has waited longest for its next request, among those `include` picks.
        func longestWaiting(where include: (Slot) -> Bool) -> Int? {
            var oldest: (id: Int, since: NIODeadline)?
            for (id, slot) in slots where include(slot) {
                if case .waiting(let since) = slot.activity, oldest.map({ since < $0.since }) ?? true {
                    oldest = (id, since)
                }
            }
            return oldest?.id
        }
    }

    private let state = Mutex(State())

    /// Admits `channel` of user `uid`, closing a waiting connection to make room when needed.
    func enter(_ channel: any Channel, uid: UInt32, limits: Limits) -> Admission {
        let privileged = limits.privileged(uid)
        let (admission, evicted) = state.withLock { state -> (Admission, [any Channel]) in
            var evicted: [any Channel] = []
            if !privileged, state.slots.values.count(where: { $0.uid == uid }) >= limits.perUser {
                guard let id = state.longestWaiting(where: { $0.uid == uid }) else { return (.refusedForUser, []) }
                evicted.append(state.slots.removeValue(forKey: id)!.channel)
            }
            let room = privileged ? limits.total : limits.total - limits.reserved
            while state.slots.count >= room {
                guard let id = state.longestWaiting(where: { _ in true }) else {
                    return (.refused, evicted)
                }
                evicted.append(state.slots.removeValue(forKey: id)!.channel)
            }
            state.nextID += 1
            state.slots[state.nextID] = Slot(channel: channel, uid: uid, activity: .waiting(since: .now()))
            return (.admitted(id: state.nextID), evicted)
        }
        evicted.forEach { $0.close(promise: nil) }
        return admission
    }

    func update(_ id: Int, _ activity: Activity) {
        state.withLock { state in
            state.slots[id]?.activity = activity
        }
    }

    func leave(_ id: Int) {
        _ = state.withLock { $0.slots.removeValue(forKey: id) }
    }

    var count: Int { state.withLock { $0.slots.count } }
}
