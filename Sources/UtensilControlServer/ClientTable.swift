import NIOCore
import Synchronization

/// The connected clients, against the limit — and what each is doing, so that a full table
/// never locks an operator out.
///
/// At the limit, a newcomer is admitted by closing the connection that has been *waiting*
/// longest for its next complete request (a slow-loris dribbling bytes of a line it never
/// finishes, or a client that connected and said nothing). Connections running a request or
/// following `events` are never closed for room; only when every slot is busy that way is the
/// newcomer turned away with `busy`.
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
        case refused
    }

    private struct Slot {
        var channel: any Channel
        var activity: Activity
    }

    private struct State {
        var slots: [Int: Slot] = [:]
        var nextID = 0
    }

    private let state = Mutex(State())

    /// Admits `channel`, closing the longest-waiting connection when the table is full.
    func enter(_ channel: any Channel, limit: Int) -> Admission {
        let (admission, evicted) = state.withLock { state -> (Admission, (any Channel)?) in
            var evicted: (any Channel)?
            if state.slots.count >= limit {
                var oldest: (id: Int, since: NIODeadline)?
                for (id, slot) in state.slots {
                    if case .waiting(let since) = slot.activity, oldest.map({ since < $0.since }) ?? true {
                        oldest = (id, since)
                    }
                }
                guard let oldest else { return (.refused, nil) }
                evicted = state.slots.removeValue(forKey: oldest.id)?.channel
            }
            state.nextID += 1
            state.slots[state.nextID] = Slot(channel: channel, activity: .waiting(since: .now()))
            return (.admitted(id: state.nextID), evicted)
        }
        evicted?.close(promise: nil)
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
