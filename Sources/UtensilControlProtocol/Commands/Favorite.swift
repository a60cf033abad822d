extension ControlCommand {
    /// `favorite`: a utensil by id, marked as a favorite of the calling user.
    public static let favorite = ControlCommand(
        "favorite", replyKey: "favorited", access: .personal,
        decode: { arguments in .favorite(try arguments.required("target", "the id of a utensil")) },
        encode: { request, arguments in
            guard case .favorite(let target) = request else { return }
            try arguments.write(target, "target")
        })
}

extension ControlCall where Reply == UtensilInfo {
    /// The utensil, now a favorite of the calling user (`favorite` true).
    public static func favorite(_ id: String) -> Self { Self(.favorite(id)) }
}
