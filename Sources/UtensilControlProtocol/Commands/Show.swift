extension ControlCommand {
    /// `show`: a utensil by id or name; `preview` adds the thumbnail and a raw RGB preview.
    public static let show = ControlCommand(
        "show", replyKey: "utensil", access: .reads,
        decode: { arguments in
            .show(try arguments.required("target", "the id or name of a utensil"), preview: try arguments.flag("preview"))
        },
        encode: { request, arguments in
            guard case .show(let target, let preview) = request else { return }
            try arguments.write(target, "target")
            try arguments.flag(preview, "preview")
        })
}

extension ControlCall where Reply == UtensilInfo {
    public static func show(_ idOrName: String, preview: Bool = false) -> Self { Self(.show(idOrName, preview: preview)) }
}
