import ArgumentParser
import UtensilControlProtocol

struct SetCategory: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set-category",
        abstract: "Put a utensil into a category, or (with --none) into none.",
        discussion: """
            The category follows the rules of a name (1 to 100 characters, no line breaks or \
            control characters); an existing category is matched regardless of letter case.

            Examples:
              utensilctl set-category 6F1C2D3E-4A5B-4C6D-8E9F-0A1B2C3D4E5F Knives
              utensilctl set-category 6F1C2D3E-4A5B-4C6D-8E9F-0A1B2C3D4E5F --none
            """)

    @Argument(help: ArgumentHelp("The utensil's id.", valueName: "id"))
    var id: String

    @Argument(help: ArgumentHelp("The new category.", valueName: "category"))
    var category: String?

    @Flag(help: "Take the utensil out of any category.")
    var none = false

    @OptionGroup var globals: GlobalOptions
    @ParentCommand var root: Utensilctl

    func validate() throws {
        switch (category, none) {
        case (nil, false): throw ValidationError("Name the category, or pass --none.")
        case (.some, true): throw ValidationError("Pass either a category or --none, not both.")
        default: break
        }
    }

    func run() throws {
        try Invocation(globals, outer: root.globals).run { invocation throws(ClientError) in
            let changed = try invocation.connect().send(.setCategory(id, to: none ? nil : category))
            if invocation.json { return try JSONOutput.print(changed) }
            let name = TerminalText.escaped(changed.name)
            if let category = changed.category {
                invocation.print(["\"\(name)\" (\(changed.id)) is now in the category \"\(TerminalText.escaped(category))\"."])
            } else {
                invocation.print(["\"\(name)\" (\(changed.id)) is now in no category."])
            }
        }
    }
}
