import Foundation
import Synchronization

/// What `status` still knows while the catalog cannot answer: the last utensil count it
/// read, and since when the catalog has been unavailable (to `status`'s eyes).
final class CatalogOutage: Sendable {
    private struct State {
        var lastCount = 0
        var since: Date?
    }

    private let state = Mutex(State())

    /// The catalog answered with `count`: the outage, if any, is over.
    func answered(_ count: Int) {
        state.withLock { $0 = State(lastCount: count, since: nil) }
    }

    /// The catalog did not answer: the last count read and since when it has not.
    func unavailable(now: Date = Date()) -> (lastCount: Int, since: Date) {
        state.withLock { state in
            let since = state.since ?? now
            state.since = since
            return (state.lastCount, since)
        }
    }
}
