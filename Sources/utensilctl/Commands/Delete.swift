import ArgumentParser
import UtensilControlProtocol

struct Delete: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Move a utensil to the trash, or with --now delete its row, original and thumbnail at once.",
        discussion: """
            Takes the id (see `utensilctl list`), not the name, so that a typo cannot delete the wrong one. \
            A utensil in the trash is gone from list, search and categories and its name is free for a \
            new drop; `utensilctl restore` brings it back until the daemon purges it after trash_days \
            (with trash_days = 0, delete removes at once).

            Examples:
              utensilctl delete 6F1C2D3E-4A5B-4C6D-8E9F-0A1B2C3D4E5F
              utensilctl delete --now 6F1C2D3E-4A5B-4C6D-8E9F-0A1B2C3D4E5F
            """)

    @Argument(help: ArgumentHelp("The utensil's id.", valueName: "id"))
    var id: String

    @Flag(help: "Delete for good now (also from the trash), instead of moving to the trash.")
    var now = false

    @OptionGroup var globals: GlobalOptions
    @ParentCommand var root: Utensilctl

    func run() throws {
        try Invocation.answer(.delete(id, now: now), globals, outer: root.globals) { deleted, _ in
            let name = TerminalText.escaped(deleted.name)
            guard let purgeAt = deleted.purgeAt else {
                return ["Deleted \"\(name)\" (\(deleted.id)) for good: its row, original and thumbnail are gone and cannot be restored."]
            }
            return [
                "Moved \"\(name)\" (\(deleted.id)) to the trash; it is purged on \(Formats.dateTime(purgeAt, in: .current)).",
                "Undo with: utensilctl restore \(deleted.id)",
            ]
        }
    }
}
