extension ControlCommand {
    /// `restore`: a utensil by id, back from the trash, under a new name when given.
    public static let restore = ControlCommand(
        "restore", replyKey: "restored", access: .changes,
        decode: { arguments in
            .restore(try arguments.required("target", "the id of a utensil in the trash"), as: try arguments.optional("newName"))
        },
        encode: { request, arguments in
            guard case .restore(let target, let newName) = request else { return }
            try arguments.write(target, "target")
            try arguments.writeIfPresent(newName, "newName")
        })
}

extension ControlCall where Reply == UtensilInfo {
    public static func restore(_ id: String, as newName: String? = nil) -> Self { Self(.restore(id, as: newName)) }
}
