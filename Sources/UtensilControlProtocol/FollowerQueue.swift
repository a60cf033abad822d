import Synchronization

/// What a follower of a live stream (`events`, the gallery's event stream, a backup's
/// progress) has not taken yet, bounded: at most `limit` items wait. The item after that
/// means the follower has fallen behind: the queue ends once the waiting items are taken,
/// ``fellBehind`` says so, and nothing more is kept for it. A reader that never reads thus
/// costs at most `limit` items, however much happens meanwhile, and it never sees a gap: it
/// gets an unbroken run of items and then the end.
///
/// A producer that can wait (a replay of past events) paces itself with ``waitForRoom()``
/// instead, so that a slow reader slows the replay rather than falling behind.
public final class FollowerQueue<Element: Sendable>: Sendable {
    /// The items in the order they were sent; ends after ``finish()`` or when the follower
    /// fell behind.
    public let items: Items
    public let limit: Int
    private let continuation: AsyncStream<Element>.Continuation
    private let behind = Atomic<Bool>(false)
    private let onFellBehind: @Sendable () -> Void
    private let pacer = Pacer()

    /// Items waiting, and the producers waiting for room; shared with ``items`` and the end.
    private final class Pacer: Sendable {
        struct State {
            var waiting = 0
            var ended = false
            var producers: [CheckedContinuation<Void, Never>] = []
            var onEnd: (@Sendable () -> Void)?
        }
        let state = Mutex(State())

        func taken() {
            let producer = state.withLock { state -> CheckedContinuation<Void, Never>? in
                state.waiting = max(0, state.waiting - 1)
                return state.producers.isEmpty ? nil : state.producers.removeFirst()
            }
            producer?.resume()
        }

        func ended() {
            let (producers, onEnd) = state.withLock { state in
                state.ended = true
                defer { state.producers = [] }
                return (state.producers, state.onEnd)
            }
            for producer in producers { producer.resume() }
            onEnd?()
        }
    }

    /// - Parameter onFellBehind: called once, at the moment the follower falls behind (to
    ///   start a deadline for a reader that may never take what waits).
    public init(limit: Int, onFellBehind: @escaping @Sendable () -> Void = {}) {
        precondition(limit > 0, "A follower's queue holds at least one item.")
        self.limit = limit
        self.onFellBehind = onFellBehind
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .bufferingOldest(limit))
        self.continuation = continuation
        let pacer = pacer
        items = Items(stream: stream, taken: { pacer.taken() })
        continuation.onTermination = { _ in pacer.ended() }
    }

    /// Queues `item`. False when it was not queued: the follower had `limit` items waiting
    /// (it has fallen behind, and the queue is now finished) or the queue was over already.
    @discardableResult
    public func send(_ item: Element) -> Bool {
        pacer.state.withLock { $0.waiting += 1 }
        switch continuation.yield(item) {
        case .enqueued: return true
        case .dropped:
            pacer.state.withLock { $0.waiting -= 1 }
            let first = !behind.exchange(true, ordering: .acquiringAndReleasing)
            continuation.finish()
            if first { onFellBehind() }
            return false
        case .terminated:
            pacer.state.withLock { $0.waiting -= 1 }
            return false
        @unknown default: return false
        }
    }

    /// Returns once one more item fits without the follower falling behind (or the queue is
    /// over: then ``send(_:)`` says so). For a producer that may wait for its reader.
    public func waitForRoom() async {
        await withCheckedContinuation { (producer: CheckedContinuation<Void, Never>) in
            let now = pacer.state.withLock { state -> Bool in
                if state.ended || state.waiting < limit { return true }
                state.producers.append(producer)
                return false
            }
            if now { producer.resume() }
        }
    }

    /// Whether the queue ended because the follower fell `limit` items behind.
    public var fellBehind: Bool { behind.load(ordering: .acquiring) }

    /// No more items: the queue ends once the waiting ones are taken.
    public func finish() { continuation.finish() }

    /// Called once when the queue ends or its reader goes away (to unsubscribe it).
    public func onTermination(_ action: @escaping @Sendable () -> Void) {
        pacer.state.withLock { $0.onEnd = action }
    }

    /// The items as they are taken (each one taken makes room for a waiting producer).
    public struct Items: AsyncSequence, Sendable {
        let stream: AsyncStream<Element>
        let taken: @Sendable () -> Void

        public func makeAsyncIterator() -> Iterator { Iterator(base: stream.makeAsyncIterator(), taken: taken) }

        public struct Iterator: AsyncIteratorProtocol {
            var base: AsyncStream<Element>.Iterator
            let taken: @Sendable () -> Void

            public mutating func next() async -> Element? {
                let item = await base.next()
                if item != nil { taken() }
                return item
            }

            public mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
                let item = await base.next(isolation: actor)
                if item != nil { taken() }
                return item
            }
        }
    }
}

extension ControlError {
    /// The last line to a follower that fell `limit` lines behind, before the server closes.
    public static func fellBehind(limit: Int) -> ControlError {
        ControlError(
            .busy,
            "This follower fell \(limit) lines behind and was disconnected so that it cannot slow utensild down; follow again (`utensilctl events --since` the last `seq` it showed replays what happened meanwhile).")
    }
}
