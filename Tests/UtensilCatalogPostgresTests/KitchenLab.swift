import Foundation
import UtensilTestSupport

/// Several utensild hosts sharing one real PostgreSQL catalog and one state folder: host `i`
/// (`kitchen-<i+1>`) runs in the ``NetworkLab``'s namespace `i`, reaches the server over its
/// own link, and has its own inbox, `rejected/` and control socket (its ``TestWorld``); the
/// state folder is the first world's. A host can be killed (`kill -9`) and started again
/// with the same name and folders.
final class KitchenLab {
    let lab: NetworkLab
    let server: PostgresServer
    let worlds: [TestWorld]
    private(set) var daemons: [RunningDaemon] = []
    /// The logs of daemons that were killed, kept for failure messages.
    private var pastLogs: [String] = []

    /// The state folder every host shares.
    var sharedState: URL { worlds[0].state }

    /// Whether every host polls the first world's inbox and rejects into its `rejected/`.
    let sharedInbox: Bool

    /// Makes `count` hosts, a server they all reach, and starts a daemon on each (READY=1);
    /// with `sharedInbox`, every host watches the first world's inbox by polling it, as hosts
    /// sharing an inbox on a network filesystem do.
    init(hosts count: Int, sharedInbox: Bool = false) throws {
        self.sharedInbox = sharedInbox
        lab = try NetworkLab(hosts: count)
        server = try PostgresServer(reachableFrom: lab)
        worlds = try (0..<count).map { _ in try TestWorld() }
        daemons = try (0..<count).map { try start($0) }
    }

    func hostName(_ index: Int) -> String { "kitchen-\(index + 1)" }

    func socket(_ index: Int) -> String { worlds[index].root.appendingPathComponent("control.sock").path }

    /// Every host's log (the killed daemons' too), for failure messages.
    var logs: String {
        (pastLogs + daemons.enumerated().map { "--- \(hostName($0.offset)) ---\n\($0.element.log)" })
            .joined(separator: "\n")
    }

    /// `kill -9` of host `index`'s daemon, then a new one with the same name and folders (READY=1).
    func killAndRestart(_ index: Int) throws {
        daemons[index].kill()
        pastLogs.append("--- \(hostName(index)), killed ---\n\(daemons[index].log)")
        daemons[index] = try start(index)
    }

    /// `utensilctl ARGUMENTS… --json` on host `index`, failing the test unless it exits 0.
    func json(_ index: Int, _ arguments: [String]) throws -> [String: Any] {
        let run = try Utensilctl.run(arguments + ["--json"], socket: socket(index), timeout: 90)
        guard run.status == 0, let json = run.json else {
            throw TestFailure("utensilctl \(arguments.joined(separator: " ")) on \(hostName(index)) exited \(run.status): \(run.errors)\n\(run.output)")
        }
        return json
    }

    /// Files waiting in each host's inbox.
    var inboxCounts: [Int] { worlds.map { $0.files(in: $0.inbox).count } }

    /// SIGTERM to every daemon; their exit statuses.
    func terminate() throws -> [Int32] {
        try daemons.map { try $0.terminate() }
    }

    /// Stops every daemon at once and removes the namespaces, the server and the folders.
    func remove() {
        daemons.forEach { $0.kill() }
        server.remove()
        lab.remove()
        worlds.forEach { $0.remove() }
    }

    private func start(_ index: Int) throws -> RunningDaemon {
        let host = lab.hosts[index]
        return try RunningDaemon(
            world: worlds[index],
            extra: [
                "--catalog", "postgresql://\(server.role)@\(host.gateway):\(server.port)/\(server.database)",
                "--catalog-password-file", server.passwordFile, "--host-name", hostName(index),
                "--state-dir", sharedState.path, "--workers", "2",
            ] + (sharedInbox ? ["--inbox", worlds[0].inbox.path, "--rejected", worlds[0].rejected.path, "--watch", "poll"] : []),
            launcher: lab.launcher(for: host))
    }
}
