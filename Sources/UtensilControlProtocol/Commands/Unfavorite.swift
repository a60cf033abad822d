extension ControlCommand {
    /// `unfavorite`: a utensil by id, no longer a favorite of the calling user.
    public static let unfavorite = ControlCommand(
        "unfavorite", replyKey: "unfavorited", access: .personal,
        decode: { arguments in .unfavorite(try arguments.required("target", "the id of a utensil")) },
        encode: { request, arguments in
            guard case .unfavorite(let target) = request else { return }
            try arguments.write(target, "target")
        })
}

extension ControlCall where Reply == UtensilInfo {
    /// The utensil, no longer a favorite of the calling user (`favorite` false).
    public static func unfavorite(_ id: String) -> Self { Self(.unfavorite(id)) }
}
