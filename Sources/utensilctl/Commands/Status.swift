import ArgumentParser
import UtensilControlProtocol

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the daemon's version, folders, counters and last error.",
        discussion: """
            Examples:
              utensilctl status
              utensilctl status --json | jq .queued
            """)

    @OptionGroup var globals: GlobalOptions
    @ParentCommand var root: Utensilctl

    func run() throws {
        try Invocation(globals, outer: root.globals).run { invocation throws(ClientError) in
            let status = try invocation.connect().send(.status)
            if invocation.json {
                try JSONOutput.print(status)
            } else {
                invocation.print(StatusView.render(status, style: invocation.style))
            }
        }
    }
}
