extension ControlCommand {
    /// `trash`: the utensils in the trash.
    public static let trash = ControlCommand("trash", replyKey: "trash", access: .reads, decode: { _ in .trash })
}

extension ControlCall where Reply == [UtensilInfo] {
    /// The utensils in the trash, each with `trashedAt` and `purgeAt`.
    public static var trash: Self { Self(.trash) }
}
