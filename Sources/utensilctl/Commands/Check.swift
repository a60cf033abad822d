import ArgumentParser
import UtensilControlProtocol

struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check the catalog: database integrity, rows without files, files without rows, cut-off uploads.",
        discussion: """
            Exits with 1 when the catalog is inconsistent, after printing the report.

            Examples:
              utensilctl check
              utensilctl check --json | jq .ok
            """)

    @OptionGroup var globals: GlobalOptions
    @ParentCommand var root: Utensilctl

    func run() throws {
        try Invocation(globals, outer: root.globals).run { invocation throws(ClientError) in
            let report = try invocation.connect(replyTimeoutSeconds: ControlClient.slowReplyTimeoutSeconds).send(.check)
            if invocation.json {
                try JSONOutput.print(report)
            } else {
                invocation.print(CheckView.render(report, style: invocation.style))
            }
            if !report.ok { throw .inconsistent(CheckView.summary(report)) }
        }
    }
}
