import ArgumentParser
import UtensilControlProtocol

struct Events: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Follow ingests and rejections live, one line each, until interrupted.",
        discussion: """
            With --json, one JSON object per line.

            Examples:
              utensilctl events
              utensilctl events --json | jq -r 'select(.kind == "rejected") | .inboxFile'
            """)

    @OptionGroup var globals: GlobalOptions
    @ParentCommand var root: Utensilctl

    func run() throws {
        try Invocation(globals, outer: root.globals).run { invocation throws(ClientError) in
            let client = try invocation.connect()
            if invocation.terminal.isTTY && !invocation.json {
                StandardStreams.error("Following ingests and rejections at \(invocation.socketPath); Ctrl-C stops.")
            }
            try client.follow { event throws(ClientError) in
                if invocation.json {
                    try JSONOutput.print(event)
                } else {
                    StandardStreams.out(EventLine.render(event, style: invocation.style))
                }
            }
        }
    }
}
