import ArgumentParser
import UtensilControlProtocol

struct Restore: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Bring a utensil back from the trash.",
        discussion: """
            If another utensil took its name meanwhile, give it a new one with --as (validated \
            like a dropped file's name).

            Examples:
              utensilctl restore 6F1C2D3E-4A5B-4C6D-8E9F-0A1B2C3D4E5F
              utensilctl restore 6F1C2D3E-4A5B-4C6D-8E9F-0A1B2C3D4E5F --as "Old spoon"
            """)

    @Argument(help: ArgumentHelp("The utensil's id (see `utensilctl trash`).", valueName: "id"))
    var id: String

    @Option(name: .customLong("as"), parsing: .unconditional, help: ArgumentHelp("Restore it under this name.", valueName: "new-name"))
    var newName: String?

    @OptionGroup var globals: GlobalOptions
    @ParentCommand var root: Utensilctl

    func run() throws {
        try Invocation.answer(.restore(id, as: newName), globals, outer: root.globals) { restored, _ in
            ["Restored \"\(TerminalText.escaped(restored.name))\" (\(restored.id))."]
        }
    }
}
