import ArgumentParser
import UtensilControlProtocol

struct Delete: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Delete a utensil: its row, original and thumbnail, all at once.",
        discussion: """
            Takes the id (see `utensilctl list`), not the name, so that a typo cannot delete the wrong one.

            Example:
              utensilctl delete 6F1C2D3E-4A5B-4C6D-8E9F-0A1B2C3D4E5F
            """)

    @Argument(help: ArgumentHelp("The utensil's id.", valueName: "id"))
    var id: String

    @OptionGroup var globals: GlobalOptions
    @ParentCommand var root: Utensilctl

    func run() throws {
        try Invocation(globals, outer: root.globals).run { invocation throws(ClientError) in
            let deleted = try invocation.connect().send(.delete(id)).expect("deleted", \.deletedUtensil)
            if invocation.json { return try JSONOutput.print(deleted) }
            invocation.print(["Deleted \"\(TerminalText.escaped(deleted.name))\" (\(deleted.id))."])
        }
    }
}
