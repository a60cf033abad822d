import Synchronization

/// What a follower of a live stream (`events`, the gallery's event stream, a backup's
/// progress) has not taken yet, bounded: at most `limit` items wait. The item after that
/// means the follower has fallen behind: the queue ends once the waiting items are taken,
/// ``fellBehind`` says so, and nothing more is kept for it. A reader that never reads thus
/// costs at most `limit` items, however much happens meanwhile, and it never sees a gap: it
/// gets an unbroken run of items and then the end.
public final class FollowerQueue<Element: Sendable>: Sendable {
    /// The items in the order they were sent; ends after ``finish()`` or when the follower
    /// fell behind.
    public let items: AsyncStream<Element>
    public let limit: Int
    private let continuation: AsyncStream<Element>.Continuation
    private let behind = Atomic<Bool>(false)
    private let onFellBehind: @Sendable () -> Void

    /// - Parameter onFellBehind: called once, at the moment the follower falls behind (to
    ///   start a deadline for a reader that may never take what waits).
    public init(limit: Int, onFellBehind: @escaping @Sendable () -> Void = {}) {
        precondition(limit > 0, "A follower's queue holds at least one item.")
        self.limit = limit
        self.onFellBehind = onFellBehind
        (items, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .bufferingOldest(limit))
    }

    /// Queues `item`. False when it was not queued: the follower had `limit` items waiting
    /// (it has fallen behind, and the queue is now finished) or the queue was over already.
    @discardableResult
    public func send(_ item: Element) -> Bool {
        switch continuation.yield(item) {
        case .enqueued: return true
        case .dropped:
            let first = !behind.exchange(true, ordering: .acquiringAndReleasing)
            continuation.finish()
            if first { onFellBehind() }
            return false
        case .terminated: return false
        @unknown default: return false
        }
    }

    /// Whether the queue ended because the follower fell `limit` items behind.
    public var fellBehind: Bool { behind.load(ordering: .acquiring) }

    /// No more items: the queue ends once the waiting ones are taken.
    public func finish() { continuation.finish() }

    /// Called once when the queue ends or its reader goes away (to unsubscribe it).
    public func onTermination(_ action: @escaping @Sendable () -> Void) {
        continuation.onTermination = { _ in action() }
    }
}

extension ControlError {
    /// The last line to a follower that fell `limit` lines behind, before the server closes.
    public static func fellBehind(limit: Int) -> ControlError {
        ControlError(
            .busy,
            "This follower fell \(limit) lines behind and was disconnected so that it cannot slow utensild down; follow again (`utensilctl list` and `utensilctl rejected` show what happened meanwhile).")
    }
}
