import Synchronization

/// Whether a connection is lost, so that the loss and the return are each logged once.
final class FeedOutage: Sendable {
    private let lost = Mutex(false)

    /// Marks it lost; true the first time (log it).
    func began() -> Bool { lost.withLock { was in defer { was = true }; return !was } }

    /// Marks it back; true when it was lost (log it).
    func ended() -> Bool { lost.withLock { was in defer { was = false }; return was } }
}
