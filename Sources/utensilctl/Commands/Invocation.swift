import ArgumentParser
import Foundation
import UtensilControlProtocol

/// What every subcommand shares: the merged global options, the socket path, the terminal,
/// and the translation of `ClientError` into a message on stderr and an exit code.
struct Invocation {
    let options: GlobalOptions
    let socketPath: String
    let terminal: Terminal

    init(_ globals: GlobalOptions, outer: GlobalOptions, environment: [String: String] = ProcessInfo.processInfo.environment) {
        options = globals.merged(with: outer)
        socketPath = options.socketPath(environment: environment)
        terminal = Terminal.current(environment: environment)
    }

    var json: Bool { options.json }
    var style: Style { terminal.style }

    /// A new connection to the daemon, whose replies may take up to `replyTimeoutSeconds`.
    func connect(replyTimeoutSeconds: Int = ControlClient.replyTimeoutSeconds) throws(ClientError) -> ControlClient {
        try ControlClient(socketPath: socketPath, replyTimeoutSeconds: replyTimeoutSeconds)
    }

    /// Runs `body`; a `ClientError` becomes `utensilctl: MESSAGE` on stderr and its exit code.
    func run(_ body: (Invocation) throws(ClientError) -> Void) throws(ExitCode) {
        do {
            try body(self)
        } catch {
            StandardStreams.error("utensilctl: " + TerminalText.escaped(error.message))
            throw ExitCode(error.exitCode)
        }
    }

    /// A subcommand that makes one call: its reply as JSON with `--json`, else the lines
    /// `shown` makes of it; a `ClientError` as `run` words it.
    static func answer<Reply: Encodable>(
        _ call: ControlCall<Reply>, _ globals: GlobalOptions, outer: GlobalOptions,
        shown: (Reply, Invocation) -> [String]
    ) throws(ExitCode) {
        try Invocation(globals, outer: outer).run { invocation throws(ClientError) in
            let reply = try invocation.connect().send(call)
            if invocation.json { return try JSONOutput.print(reply) }
            invocation.print(shown(reply, invocation))
        }
    }

    func print(_ lines: [String]) {
        for line in lines { StandardStreams.out(line) }
    }
}
