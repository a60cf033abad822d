extension ControlCommand {
    /// `status`: the daemon's state and counters.
    public static let status = ControlCommand("status", replyKey: "status", access: .reads, decode: { _ in .status })
}

extension ControlCall where Reply == StatusInfo {
    public static var status: Self { Self(.status) }
}
