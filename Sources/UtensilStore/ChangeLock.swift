import Synchronization

/// A lock that a task awaits without blocking its thread: one stripe of the locks that keep
/// two operations on one utensil apart (``UtensilStore/whileChanging(_:_:)-async``). It is
/// handed to those waiting in the order they came. A thread of the ingest engine (a commit,
/// `rethumb`) takes it through ``CatalogAwait``, the engine's bridge.
///
/// Waiting ignores cancellation: the lock is held for one utensil's file moves and one catalog
/// call, never for long.
final class ChangeLock: Sendable {
    private struct State {
        var held = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Takes the lock, waiting (suspended) while another holds it.
    func lock() async {
        let taken = state.withLock { state in
            guard !state.held else { return false }
            state.held = true
            return true
        }
        if taken { return }
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let takenMeanwhile = state.withLock { state in
                guard state.held else {
                    state.held = true
                    return true
                }
                state.waiting.append(waiter)
                return false
            }
            if takenMeanwhile { waiter.resume() }
        }
    }

    /// How many wait for it now.
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Lets the lock go: to the first waiting, if any (it stays held for them).
    func unlock() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.held = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
