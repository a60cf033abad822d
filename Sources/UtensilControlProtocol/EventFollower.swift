/// One follower of the daemon's events: those after a `seq` it last saw, read from the
/// catalog's event log page by page, then the live ones — in `seq` order, none twice, none
/// missed. `utensilctl events --since` and the gallery's event stream (`Last-Event-ID`) both
/// follow through it.
public struct EventFollower: Sendable {
    /// The live events, subscribed before the replay starts (so that nothing falls between).
    public let live: FollowerQueue<EventInfo>
    /// The events after a `seq`, oldest first (a page; empty when there is none).
    let missed: @Sendable (Int64) async -> EventReplayPage

    public init(live: FollowerQueue<EventInfo>, missed: @escaping @Sendable (Int64) async -> EventReplayPage) {
        self.live = live
        self.missed = missed
    }

    /// How a follow ended.
    public enum End: Sendable, Equatable {
        /// The live events ended (the daemon stops).
        case finished
        /// The reader took nothing more (`send` refused).
        case readerGone
        /// The reader fell ``FollowerQueue/limit`` live events behind.
        case fellBehind(limit: Int)
        /// Events after `since` are no longer kept (the oldest kept is `oldestKept`).
        case tooOld(since: Int64, oldestKept: Int64)
        /// The catalog could not be read for the replay.
        case unavailable(String)
    }

    /// Sends every event after `since` (nil: only the live ones), then each live event, to
    /// `send`, until it returns false or the events end. `room` is awaited before each
    /// replayed event: a reader that reads slowly slows the replay down.
    public func run(since: Int64?, room: () async -> Void, send: (EventInfo) -> Bool) async -> End {
        var last = since
        if let since {
            var after = since
            page: while true {
                switch await missed(after) {
                case .events(let events):
                    if events.isEmpty { break page }
                    for event in events {
                        await room()
                        guard send(event) else { live.finish(); return .readerGone }
                        if let seq = event.seq { after = seq }
                    }
                    last = after
                case .tooOld(let oldest):
                    live.finish()
                    return .tooOld(since: since, oldestKept: oldest)
                case .unavailable(let why):
                    live.finish()
                    return .unavailable(why)
                }
            }
        }
        for await event in live.items {
            if let seq = event.seq, let last, seq <= last { continue }
            guard send(event) else { live.finish(); return .readerGone }
        }
        return live.fellBehind ? .fellBehind(limit: live.limit) : .finished
    }
}

/// A page of the events a follower missed.
public enum EventReplayPage: Sendable, Equatable {
    /// The next events, oldest first; empty when the follower is up to date.
    case events([EventInfo])
    /// The events asked for are no longer kept: the oldest kept has this `seq`.
    case tooOld(oldestKept: Int64)
    /// The catalog cannot be read just now.
    case unavailable(String)
}

extension ControlError {
    /// The last line to a follower whose follow ended for a reason it should know, or nil.
    public static func followEnded(_ end: EventFollower.End) -> ControlError? {
        switch end {
        case .finished, .readerGone: nil
        case .fellBehind(let limit): .fellBehind(limit: limit)
        case .tooOld(let since, let oldest):
            ControlError(
                .notFound,
                "The events after \(since) are no longer kept (the oldest kept is \(oldest)); `utensilctl list` shows the catalog as it is, and `utensilctl events --since \(oldest - 1)` replays what is kept.")
        case .unavailable(let why):
            ControlError(
                .busy,
                "The catalog's event log cannot be read just now (\(why)); follow again in a moment.")
        }
    }
}
