import Synchronization

/// The store's word that its utensils changed: after each operation that may have changed how
/// many there are (an ingest's commit, trash, restore, delete for good), every follower's
/// stream gets a value (at most one waits; the follower reads the count again). This is what
/// the `STATUS=` line follows, through the store rather than a backend's own notifications:
/// the store is the only writer of the catalog in the process.
final class UtensilChanges: Sendable {
    private let followers = Mutex<(next: Int, all: [Int: AsyncStream<Void>.Continuation])>((0, [:]))

    /// A stream of wake-ups from now on; it ends when the follower stops iterating it.
    func follow() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let key = followers.withLock { followers in
            defer { followers.next += 1 }
            followers.all[followers.next] = continuation
            return followers.next
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.followers.withLock { $0.all.removeValue(forKey: key) }
        }
        return stream
    }

    /// Wakes every follower.
    func announce() {
        for continuation in followers.withLock({ Array($0.all.values) }) { continuation.yield() }
    }
}
