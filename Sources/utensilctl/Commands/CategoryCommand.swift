import ArgumentParser
import UtensilControlProtocol

/// `utensilctl category rename|delete`: a category as a whole.
struct CategoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "category",
        abstract: "Rename or delete a category for all its utensils.",
        discussion: """
            Names are matched regardless of letter case. A later drop into the inbox folder \
            of the old name gets that category again: rename the folder too.

            Examples:
              utensilctl category rename Knifes Knives
              utensilctl category delete Misc
            """,
        subcommands: [Rename.self, Delete.self])

    @OptionGroup var globals: GlobalOptions
    @ParentCommand var root: Utensilctl

    /// This group's and the root's global options, merged.
    var outer: GlobalOptions { globals.merged(with: root.globals) }

    struct Rename: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Rename a category; into an existing category, its utensils join that one.",
            discussion: """
                The new name follows the rules of set-category: a folder name the inbox \
                watches (1 to 100 characters, no /, no line breaks or control characters, no \
                name the inbox ignores).
                """)

        @Argument(help: ArgumentHelp("The category's name.", valueName: "old"))
        var old: String

        @Argument(help: ArgumentHelp("Its new name (an existing category: merge).", valueName: "new"))
        var new: String

        @OptionGroup var globals: GlobalOptions
        @ParentCommand var group: CategoryCommand

        func run() throws {
            try Invocation.answer(.categoryRename(old, to: new), globals, outer: group.outer) { change, _ in [CategoryChangeLine.render(change)] }
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a category: its utensils stay, in no category.")

        @Argument(help: ArgumentHelp("The category's name.", valueName: "name"))
        var name: String

        @OptionGroup var globals: GlobalOptions
        @ParentCommand var group: CategoryCommand

        func run() throws {
            try Invocation.answer(.categoryDelete(name), globals, outer: group.outer) { change, _ in [CategoryChangeLine.render(change)] }
        }
    }
}
