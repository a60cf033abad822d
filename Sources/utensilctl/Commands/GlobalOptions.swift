import ArgumentParser
import UtensilControlProtocol

/// `--socket` and `--json`, accepted before and after the subcommand: the root and every
/// subcommand carry this group, and `merged(with:)` combines the two.
struct GlobalOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The daemon's control socket (default: $\(ControlProtocol.socketEnvironmentVariable), then \(ControlProtocol.defaultSocketPath)).",
            valueName: "path"),
        completion: .file())
    var socket: String?

    @Flag(name: .long, help: "Print one JSON document (events: one JSON object per line) instead of a table.")
    var json = false

    /// Options given after the subcommand win over those given before it.
    func merged(with outer: GlobalOptions) -> GlobalOptions {
        var merged = self
        merged.socket = socket ?? outer.socket
        merged.json = json || outer.json
        return merged
    }

    /// The socket to use: `--socket`, then `$UTENSIL_SOCKET`, then the default.
    func socketPath(environment: [String: String]) -> String {
        if let socket, !socket.isEmpty { return socket }
        if let fromEnvironment = environment[ControlProtocol.socketEnvironmentVariable], !fromEnvironment.isEmpty {
            return fromEnvironment
        }
        return ControlProtocol.defaultSocketPath
    }
}
