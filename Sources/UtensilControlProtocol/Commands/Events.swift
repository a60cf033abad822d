extension ControlCommand {
    /// `events`: answered by `subscribed`, then one line per event under `eventKey`; with
    /// `since`, the events after that `seq` come first.
    public static let events = ControlCommand(
        "events", replyKey: "subscribed", access: .reads,
        decode: { arguments in .events(since: try arguments.optional("since", as: Int64.self)) },
        encode: { request, arguments in
            guard case .events(let since) = request else { return }
            try arguments.writeIfPresent(since, "since")
        })
}

extension ControlCall where Reply == Subscription {
    /// Answered by `subscribed`, then one `EventInfo` line per event (`LineFraming.decodeEvent`):
    /// first those after `since` (a `seq`) that the catalog keeps, then each new one.
    public static func events(since: Int64? = nil) -> Self { Self(.events(since: since)) }
}
