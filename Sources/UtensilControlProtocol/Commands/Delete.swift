extension ControlCommand {
    /// `delete`: a utensil by id, to the trash, or with `now` for good.
    public static let delete = ControlCommand(
        "delete", replyKey: "deleted", access: .changes,
        decode: { arguments in
            .delete(try arguments.required("target", "the id of a utensil"), now: try arguments.flag("now"))
        },
        encode: { request, arguments in
            guard case .delete(let target, let now) = request else { return }
            try arguments.write(target, "target")
            try arguments.flag(now, "now")
        })
}

extension ControlCall where Reply == UtensilInfo {
    /// The utensil in the trash, or as it was before it was deleted for good.
    public static func delete(_ id: String, now: Bool = false) -> Self { Self(.delete(id, now: now)) }
}
