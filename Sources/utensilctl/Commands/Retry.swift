import ArgumentParser
import UtensilControlProtocol

struct Retry: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Move rejected files back into the inbox (their sidecars are removed).",
        discussion: """
            Fix the cause first (rename the utensil that clashes, say): a file that fails \
            again is rejected again.

            Examples:
              utensilctl retry "Spoon!!.jpg"
              utensilctl retry --all
            """)

    @Argument(help: ArgumentHelp("A file name from `utensilctl rejected`.", valueName: "file"))
    var file: String?

    @Flag(help: "Retry every rejected file.")
    var all = false

    @OptionGroup var globals: GlobalOptions
    @ParentCommand var root: Utensilctl

    func validate() throws {
        switch (file, all) {
        case (nil, false): throw ValidationError("Name a rejected file, or pass --all.")
        case (.some, true): throw ValidationError("Pass either a file or --all, not both.")
        default: break
        }
    }

    func run() throws {
        try Invocation(globals, outer: root.globals).run { invocation throws(ClientError) in
            let request = file.map(ControlRequest.retry(file:)) ?? .retryAll
            let retried = try invocation.connect().send(request).expect("retried", \.retriedFiles)
            if invocation.json { return try JSONOutput.print(retried) }
            guard !retried.isEmpty else { return invocation.print(["No rejected files to retry."]) }
            invocation.print(
                ["Moved \(Formats.count(retried.count, "file")) back into the inbox:"]
                    + retried.map { "  " + TerminalText.escaped($0) })
        }
    }
}
