import ArgumentParser
import UtensilControlProtocol

struct Events: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Follow ingests and rejections live, one line each, until interrupted.",
        discussion: """
            With --json, one JSON object per line. Each event has a `seq` that only grows
            across the whole catalog (every host's events); --since SEQ first replays the
            events after it that the catalog keeps (the newest 10,000), then follows.

            Examples:
              utensilctl events
              utensilctl events --since 1200 --json
              utensilctl events --json | jq -r 'select(.kind == "rejected") | .inboxFile'
            """)

    @Option(help: ArgumentHelp("Replay the events after this seq first.", valueName: "SEQ"))
    var since: Int64?

    @OptionGroup var globals: GlobalOptions
    @ParentCommand var root: Utensilctl

    func validate() throws {
        if let since, since < 0 { throw ValidationError("--since takes a seq, 0 or more, as `events --json` shows it.") }
    }

    func run() throws {
        try Invocation(globals, outer: root.globals).run { invocation throws(ClientError) in
            let client = try invocation.connect()
            if invocation.terminal.isTTY && !invocation.json {
                StandardStreams.error("Following ingests and rejections at \(invocation.socketPath); Ctrl-C stops.")
            }
            try client.follow(since: since) { event throws(ClientError) in
                if invocation.json {
                    try JSONOutput.print(event)
                } else {
                    StandardStreams.out(EventLine.render(event, style: invocation.style))
                }
            }
        }
    }
}
