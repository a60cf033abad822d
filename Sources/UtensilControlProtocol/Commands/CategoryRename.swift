import UtensilCore

extension ControlCommand {
    /// `category-rename`: a category by name, and its new name; into an existing one, merges.
    public static let categoryRename = ControlCommand(
        "category-rename", replyKey: "categoryRenamed", access: .changes,
        decode: { arguments in
            .categoryRename(
                try arguments.required("category", "the category to rename"), to: try arguments.required("newName", "its new name"))
        },
        encode: { request, arguments in
            guard case .categoryRename(let category, let newName) = request else { return }
            try arguments.write(category, "category")
            try arguments.write(newName, "newName")
        })
}

extension ControlCall where Reply == CategoryChange {
    /// Renames a category (merging into an existing one of that name).
    public static func categoryRename(_ category: String, to newName: String) -> Self { Self(.categoryRename(category, to: newName)) }
}
