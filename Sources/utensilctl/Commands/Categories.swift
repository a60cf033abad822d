import ArgumentParser
import UtensilControlProtocol

struct Categories: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the categories, each with how many utensils it has.",
        discussion: """
            A photo dropped into a folder of the inbox (inbox/Knives/…, at any depth) gets the \
            folder's name as its category; names are compared regardless of letter case.

            Examples:
              utensilctl categories
              utensilctl categories --json | jq -r '.[].name'
            """)

    @OptionGroup var globals: GlobalOptions
    @ParentCommand var root: Utensilctl

    func run() throws {
        try Invocation.answer(.categories, globals, outer: root.globals) { categories, invocation in
            CategoryListView.render(categories, style: invocation.style)
        }
    }
}
