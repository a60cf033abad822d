extension ControlCommand {
    /// `events`: answered by `subscribed`, then one line per event under `eventKey`.
    public static let events = ControlCommand("events", replyKey: "subscribed", access: .reads, decode: { _ in .events })
}

extension ControlCall where Reply == Subscription {
    /// Answered by `subscribed`, then one `EventInfo` line per event (`LineFraming.decodeEvent`).
    public static var events: Self { Self(.events) }
}
