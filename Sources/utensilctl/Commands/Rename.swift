import ArgumentParser
import UtensilControlProtocol

struct Rename: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Rename a utensil; the new name follows the same rules as a dropped file's.",
        discussion: """
            The name is trimmed and NFC-normalised, must be 1 to 100 characters without line \
            breaks or control characters, and (unless the daemon allows duplicates) must differ \
            from every other name regardless of case.

            Example:
              utensilctl rename 6F1C2D3E-4A5B-4C6D-8E9F-0A1B2C3D4E5F "Soup ladle"
            """)

    @Argument(help: ArgumentHelp("The utensil's id.", valueName: "id"))
    var id: String

    @Argument(help: ArgumentHelp("The new name.", valueName: "new-name"))
    var newName: String

    @OptionGroup var globals: GlobalOptions
    @ParentCommand var root: Utensilctl

    func run() throws {
        try Invocation.answer(.rename(id, to: newName), globals, outer: root.globals) { renamed, _ in
            ["Renamed \(renamed.id) to \"\(TerminalText.escaped(renamed.name))\"."]
        }
    }
}
