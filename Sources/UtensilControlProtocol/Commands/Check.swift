extension ControlCommand {
    /// `check`: the catalog's integrity, and rows and files that do not match.
    public static let check = ControlCommand("check", replyKey: "check", access: .reads, decode: { _ in .check })
}

extension ControlCall where Reply == CheckReport {
    public static var check: Self { Self(.check) }
}
