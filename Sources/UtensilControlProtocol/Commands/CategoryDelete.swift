import UtensilCore

extension ControlCommand {
    /// `category-delete`: a category by name; its utensils become uncategorised.
    public static let categoryDelete = ControlCommand(
        "category-delete", replyKey: "categoryDeleted", access: .changes,
        decode: { arguments in .categoryDelete(try arguments.required("category", "the category to delete")) },
        encode: { request, arguments in
            guard case .categoryDelete(let category) = request else { return }
            try arguments.write(category, "category")
        })
}

extension ControlCall where Reply == CategoryChange {
    /// Deletes a category: its utensils become uncategorised.
    public static func categoryDelete(_ category: String) -> Self { Self(.categoryDelete(category)) }
}
