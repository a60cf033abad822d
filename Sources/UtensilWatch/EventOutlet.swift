/// Delivers events into a bounded `AsyncStream` without ever losing one silently.
///
/// When the consumer falls behind and the buffer is full, the events that do not fit are
/// replaced by one `.overflow` (a full rescan covers them), kept in a small backlog together
/// with `.inboxGone`/`.inboxBack` (which are never merged away) and retried with `flush()`.
/// Memory stays bounded by the buffer size, whatever the consumer does.
struct EventOutlet {
    private let continuation: AsyncStream<WatchEvent>.Continuation
    /// Events that did not fit yet, in order: only `.overflow`, `.inboxGone`, `.inboxBack` and
    /// (one at a time) `.unwatched`.
    private(set) var backlog: [WatchEvent] = []
    /// Set once the consumer has stopped iterating.
    private(set) var consumerGone = false

    init(_ continuation: AsyncStream<WatchEvent>.Continuation) {
        self.continuation = continuation
    }

    mutating func send(_ events: [WatchEvent]) {
        for event in events { send(event) }
    }

    mutating func send(_ event: WatchEvent) {
        if !backlog.isEmpty { flush() }
        if !backlog.isEmpty {
            keep(event)
            return
        }
        switch continuation.yield(event) {
        case .enqueued: break
        case .dropped: keep(event)
        case .terminated: consumerGone = true
        @unknown default: keep(event)
        }
    }

    /// Retries the backlog; call it again later while `backlog` is not empty.
    mutating func flush() {
        while let first = backlog.first {
            switch continuation.yield(first) {
            case .enqueued:
                backlog.removeFirst()
            case .terminated:
                consumerGone = true
                backlog.removeAll()
                return
            case .dropped:
                return
            @unknown default:
                return
            }
        }
    }

    func finish() { continuation.finish() }

    private mutating func keep(_ event: WatchEvent) {
        switch event {
        case .inboxGone, .inboxBack:
            backlog.append(event)
        case .unwatched:
            if !backlog.contains(where: { if case .unwatched = $0 { true } else { false } }) { backlog.append(event) }
        case .candidate, .folderAppeared, .overflow:
            if backlog.last != .overflow { backlog.append(.overflow) }
        }
    }
}
