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
              utensilctl retry 'Caf\\xE9.jpg'    (a name that is not UTF-8, as `rejected` shows it)
              utensilctl retry --all

            Names are given as `utensilctl rejected` prints them: a byte that is not UTF-8 \
            as \\xNN, a backslash as \\\\, a control character as \\u{1B}. `--all` \
            moves what it can; if any file cannot be moved it says which and why, and the \
            exit code is 1.
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
            let outcome = try invocation.connect().send(file.map { .retry(file: $0) } ?? .retryAll)
            let retried = outcome.retried
            if invocation.json {
                try JSONOutput.print(retried)
            } else if retried.isEmpty && outcome.notRetried.isEmpty {
                invocation.print(["No rejected files to retry."])
            } else if !retried.isEmpty {
                invocation.print(
                    ["Moved \(Formats.count(retried.count, "file")) back into the inbox:"]
                        + retried.map { "  " + TerminalText.escaped($0) })
            }
            for failure in outcome.notRetried {
                StandardStreams.error("utensilctl: not retried: " + TerminalText.escaped(failure.file + ": " + failure.message))
            }
            if !outcome.notRetried.isEmpty { throw .notAllRetried(count: outcome.notRetried.count) }
        }
    }
}
