extension ControlCommand {
    /// `set-category`: a utensil by id, and its new category (`category`), or none (`"none": true`).
    public static let setCategory = ControlCommand(
        "set-category", replyKey: "categorized", access: .changes,
        decode: { arguments in
            let target = try arguments.required("target", "the id of the utensil")
            guard try arguments.flag("none") else {
                return .setCategory(target, to: try arguments.required("category", "the new category, or \"none\": true"))
            }
            guard try arguments.optional("category") == nil else {
                throw ControlError(.badRequest, "Set-category takes either a category or \"none\": true, not both.")
            }
            return .setCategory(target, to: nil)
        },
        encode: { request, arguments in
            guard case .setCategory(let target, let category) = request else { return }
            try arguments.write(target, "target")
            try arguments.writeIfPresent(category, "category")
            try arguments.flag(category == nil, "none")
        })
}

extension ControlCall where Reply == UtensilInfo {
    /// `category` nil takes the utensil out of any category.
    public static func setCategory(_ id: String, to category: String?) -> Self { Self(.setCategory(id, to: category)) }
}
