extension ControlCommand {
    /// `categories`: every category with its count.
    public static let categories = ControlCommand(
        "categories", replyKey: "categories", access: .reads, decode: { _ in .categories })
}

extension ControlCall where Reply == [CategoryInfo] {
    public static var categories: Self { Self(.categories) }
}
