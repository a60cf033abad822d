import ArgumentParser
import UtensilControlProtocol

struct Rejected: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List rejected files with their reason and time.",
        discussion: """
            Examples:
              utensilctl rejected
              utensilctl rejected --json | jq -r '.[] | select(.reason == "duplicate-name") | .file'
            """)

    @OptionGroup var globals: GlobalOptions
    @ParentCommand var root: Utensilctl

    func run() throws {
        try Invocation.answer(.rejected, globals, outer: root.globals) { files, invocation in
            RejectedView.render(files, style: invocation.style)
        }
    }
}
