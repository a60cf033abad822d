import Synchronization

/// Keeps a catalog snapshot from falling between a row's change and its files' move.
///
/// Store operations that commit a row change and then move files (an ingest's commit and the
/// placing of its files; a delete's staging-out and its commit) pass the gate together
/// (``passing(_:)-async``); a backup closes it (``closed(_:)``) just for the instant its
/// snapshot is taken, so that every row of the snapshot has its files in `originals/` and
/// `thumbnails/`, and no file there lacks its row. A backup waiting to close it keeps new
/// operations out until it has, so a burst of ingests cannot starve it; two backups close it
/// one after the other.
///
/// Whoever waits is suspended, never blocking a thread: the doors await it in their own task;
/// the ingest engine's threads wait through ``CatalogAwait`` (``passing(_:)-sync``). Waiting
/// ignores cancellation: the gate is closed for the instant of a snapshot only.
final class SnapshotGate: Sendable {
    private struct State {
        /// Operations passing now.
        var passing = 0
        /// Whether a backup has closed it.
        var closed = false
        /// Backups waiting to close it, in the order they came.
        var closers: [CheckedContinuation<Void, Never>] = []
        /// Operations waiting to pass.
        var passers: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Runs `body` as one of the store operations that may run together.
    func passing<T, E: Error>(_ body: () async throws(E) -> T) async throws(E) -> T {
        await enter()
        defer { leave() }
        return try await body()
    }

    /// Runs `body` as one of the store operations that may run together, on a thread of the
    /// ingest engine (its commit), which waits for the gate through ``CatalogAwait``.
    func passing<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        CatalogAwait.run { await self.enter() }
        defer { leave() }
        return try body()
    }

    /// Runs `body` while no store operation is between a row change and its files' move.
    func closed<T, E: Error>(_ body: () async throws(E) -> T) async throws(E) -> T {
        await close()
        defer { open() }
        return try await body()
    }

    /// How many backups wait to close it, and operations to pass it, now.
    var waitingCount: (closers: Int, passers: Int) { state.withLock { ($0.closers.count, $0.passers.count) } }

    private func enter() async {
        let entered = state.withLock { state in
            guard !state.closed, state.closers.isEmpty else { return false }
            state.passing += 1
            return true
        }
        if entered { return }
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let enteredMeanwhile = state.withLock { state in
                guard !state.closed, state.closers.isEmpty else {
                    state.passers.append(waiter)  // ``open()`` counts it in.
                    return false
                }
                state.passing += 1
                return true
            }
            if enteredMeanwhile { waiter.resume() }
        }
    }

    private func leave() {
        let closer = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.passing -= 1
            guard state.passing == 0, !state.closed, !state.closers.isEmpty else { return nil }
            state.closed = true
            return state.closers.removeFirst()
        }
        closer?.resume()
    }

    private func close() async {
        let closed = state.withLock { state in
            guard !state.closed, state.passing == 0 else { return false }
            state.closed = true
            return true
        }
        if closed { return }
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let closedMeanwhile = state.withLock { state in
                guard !state.closed, state.passing == 0 else {
                    state.closers.append(waiter)  // ``leave()`` or ``open()`` closes it for it.
                    return false
                }
                state.closed = true
                return true
            }
            if closedMeanwhile { waiter.resume() }
        }
    }

    private func open() {
        let (closer, passers) = state.withLock { state -> (CheckedContinuation<Void, Never>?, [CheckedContinuation<Void, Never>]) in
            if !state.closers.isEmpty { return (state.closers.removeFirst(), []) }  // Stays closed, for the next backup.
            state.closed = false
            let passers = state.passers
            state.passers = []
            state.passing += passers.count
            return (nil, passers)
        }
        closer?.resume()
        for passer in passers { passer.resume() }
    }
}
