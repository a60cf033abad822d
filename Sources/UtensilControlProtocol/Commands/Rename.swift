extension ControlCommand {
    /// `rename`: a utensil by id, and its new name.
    public static let rename = ControlCommand(
        "rename", replyKey: "renamed", access: .changes,
        decode: { arguments in
            .rename(
                try arguments.required("target", "the id of the utensil to rename"),
                to: try arguments.required("newName", "the new name"))
        },
        encode: { request, arguments in
            guard case .rename(let target, let newName) = request else { return }
            try arguments.write(target, "target")
            try arguments.write(newName, "newName")
        })
}

extension ControlCall where Reply == UtensilInfo {
    public static func rename(_ id: String, to newName: String) -> Self { Self(.rename(id, to: newName)) }
}
