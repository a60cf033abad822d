extension ControlCommand {
    /// `rejected`: the files in the rejected folder, each with why.
    public static let rejected = ControlCommand("rejected", replyKey: "rejected", access: .reads, decode: { _ in .rejected })
}

extension ControlCall where Reply == [RejectedInfo] {
    public static var rejected: Self { Self(.rejected) }
}
