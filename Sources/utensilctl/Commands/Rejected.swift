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
        try Invocation(globals, outer: root.globals).run { invocation throws(ClientError) in
            let files = try invocation.connect().send(.rejected)
            if invocation.json { return try JSONOutput.print(files) }
            invocation.print(RejectedView.render(files, style: invocation.style))
        }
    }
}
