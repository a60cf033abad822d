import ArgumentParser
import UtensilControlProtocol

struct Trash: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the utensils in the trash and when each is purged.",
        discussion: """
            `utensilctl delete ID` moves a utensil here; `utensilctl restore ID` brings it back, \
            `utensilctl delete --now ID` deletes it for good.

            Examples:
              utensilctl trash
              utensilctl trash --json | jq -r '.[] | .id + " " + .purgeAt'
            """)

    @OptionGroup var globals: GlobalOptions
    @ParentCommand var root: Utensilctl

    func run() throws {
        try Invocation.answer(.trash, globals, outer: root.globals) { trashed, invocation in
            TrashView.render(trashed, style: invocation.style)
        }
    }
}
