import Foundation
import UtensilTestSupport

/// Several utensild hosts sharing one real PostgreSQL catalog and one state folder: host `i`
/// (`kitchen-<i+1>`) runs in the ``NetworkLab``'s namespace `i`, reaches the server over its
/// own link, and has its own inbox, `rejected/` and control socket (its ``TestWorld``); the
/// state folder is the first world's. A host can be killed (`kill -9`) and started again
/// with the same name and folders.
///
/// Or (``sharingABucket(hosts:)``) hosts sharing no folder at all: each keeps its own state
/// folder, and the renditions are in one real SeaweedFS bucket (`storage = "s3://…/site"`,
/// keys from a credentials file in its world) that every host reaches over its link; each
/// serves its gallery on `web.sock` in its world.
final class KitchenLab {
    let lab: NetworkLab
    let server: PostgresServer
    /// The bucket's server, when the hosts share a bucket rather than a state folder.
    let bucket: SeaweedServer?
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
    convenience init(hosts count: Int, sharedInbox: Bool = false) throws {
        try self.init(lab: NetworkLab(hosts: count), bucket: nil, sharedInbox: sharedInbox)
    }

    /// Makes `count` hosts that share no folder, a PostgreSQL server and a SeaweedFS with one
    /// bucket that they all reach, and starts a daemon on each (READY=1).
    static func sharingABucket(hosts count: Int) async throws -> KitchenLab {
        let lab = try NetworkLab(hosts: count)
        let bucket = try await SeaweedServer(address: lab.hosts[0].gateway)
        return try KitchenLab(lab: lab, bucket: bucket, sharedInbox: false)
    }

    private init(lab: NetworkLab, bucket: SeaweedServer?, sharedInbox: Bool) throws {
        self.lab = lab
        self.bucket = bucket
        self.sharedInbox = sharedInbox
        server = try PostgresServer(reachableFrom: lab)
        worlds = try lab.hosts.map { _ in try TestWorld() }
        if let bucket {
            for world in worlds {
                let keys = "AWS_ACCESS_KEY_ID=\(bucket.credentials.accessKeyID)\nAWS_SECRET_ACCESS_KEY=\(bucket.credentials.secretAccessKey)\n"
                guard FileManager.default.createFile(
                    atPath: Self.keys(of: world), contents: Data(keys.utf8), attributes: [.posixPermissions: 0o600])
                else { throw TestFailure("cannot write \(Self.keys(of: world))") }
            }
        }
        daemons = try lab.hosts.indices.map { try start($0) }
    }

    func hostName(_ index: Int) -> String { "kitchen-\(index + 1)" }

    func socket(_ index: Int) -> String { worlds[index].root.appendingPathComponent("control.sock").path }

    /// Host `index`'s gallery (a bucket's hosts serve one).
    func gallery(_ index: Int) -> WebClient { WebClient(socketPath: Self.webSocket(of: worlds[index])) }

    /// The prefix of the renditions in the bucket.
    static let bucketPrefix = "site/"

    private static func keys(of world: TestWorld) -> String { world.root.appendingPathComponent("storage-keys").path }

    private static func webSocket(of world: TestWorld) -> String { world.root.appendingPathComponent("web.sock").path }

    /// Every host's log (the killed daemons' too), for failure messages.
    var logs: String {
        (pastLogs + daemons.enumerated().map { "--- \(hostName($0.offset)) ---\n\($0.element.log)" })
            .joined(separator: "\n")
    }

    /// What each host says of its drops, for a failure message: its `status --json` (queued,
    /// in flight and for how long, waiting for a retry and for what), the drops still in its
    /// inbox with every line of its log naming them (none: it never tried them), and the end
    /// of its log.
    var story: String {
        // What the server is doing for the hosts: a call waiting on a lock shows here, one the
        // server has answered (or never received) does not.
        let sessions = (try? server.superuserSQL(
            "SELECT client_addr, pid, state, wait_event_type, wait_event, now() - xact_start, now() - state_change, "
                + "pg_blocking_pids(pid), left(query, 120) FROM pg_stat_activity WHERE datname = '\(server.database)' ORDER BY client_addr",
            database: server.database)) ?? "(the server did not answer)"
        return "--- the server's sessions (address|pid|state|wait|since the transaction began|since the state began|blocked by|query) ---\n"
            + sessions + "\n" + hostStories
    }

    private var hostStories: String {
        daemons.indices.map { host in
            let status = (try? Utensilctl.run(["status", "--json"], socket: socket(host), timeout: 10))
                .map { $0.status == 0 ? $0.output : "exited \($0.status): \($0.errors)" } ?? "(utensilctl did not run)"
            let log = daemons[host].log
            let left = worlds[host].files(in: worlds[host].inbox).map { name in
                let lines = log.split(separator: "\n").filter { $0.contains(name) }
                return "\(name): " + (lines.isEmpty ? "no line of the log names it" : "\n  " + lines.joined(separator: "\n  "))
            }
            return "--- \(hostName(host)) (pid \(daemons[host].process.processIdentifier)): status ---\n\(status)\n"
                + "--- \(hostName(host)): still in its inbox ---\n\(left.isEmpty ? "nothing" : left.joined(separator: "\n"))\n"
                + "--- \(hostName(host)): its log ends ---\n\(daemons[host].logTail(80))"
        }.joined(separator: "\n")
    }

    /// `kill -9` of host `index`'s daemon, then a new one with the same name and folders (READY=1).
    func killAndRestart(_ index: Int) throws {
        kill(index)
        try restart(index)
    }

    /// `kill -9` of host `index`'s daemon; ``restart(_:)`` starts it again.
    func kill(_ index: Int) {
        daemons[index].kill()
        pastLogs.append("--- \(hostName(index)), killed ---\n\(daemons[index].log)")
    }

    /// A new daemon for host `index`, with the same name and folders (READY=1), and
    /// `environment` (a fault to inject).
    func restart(_ index: Int, environment: [String: String] = [:]) throws {
        daemons[index] = try start(index, environment: environment)
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

    /// Writes every drop of `burst` into its host's inbox, in the ledger's order.
    func drop(_ burst: DropLedger) throws {
        try drop(burst.drops[...])
    }

    func drop(_ drops: ArraySlice<DropLedger.Drop>) throws {
        for drop in drops {
            try worlds[drop.host].drop(drop.fileName, drop.photo)
        }
    }

    /// Waits until every inbox is empty and the catalog and the `rejected/` folders hold at
    /// least as many utensils and rejections as `ledger` calls for (more is for the ledger to
    /// report). On a time-out it tells each host's side (``story``).
    func waitUntilSettled(_ ledger: DropLedger) throws {
        var seen = ""
        try Poll.until(seconds: 150, "every drop ingested or rejected", detail: { "\(seen)\n\(self.story)" }) {
            let rows = (try? server.superuserSQL("SELECT count(*) FROM utensils", database: server.database)).flatMap { Int($0) } ?? -1
            let rejections = worlds.map { DropLedger.rejections(in: $0).count }.reduce(0, +)
            seen = "inboxes \(inboxCounts), \(rows) utensils, \(rejections) rejections; "
                + "expected \(ledger.expectedUtensils) utensils, \(ledger.expectedRejections) rejections"
            return inboxCounts.allSatisfy { $0 == 0 } && rows >= ledger.expectedUtensils
                && rejections >= ledger.expectedRejections
        }
    }

    /// `count` distinct JPEGs (made by Pillow), `width` by `height`, in `folder`; `seed` tells sets apart.
    static func photos(_ count: Int, in folder: URL, width: Int = 320, height: Int = 240, seed: Int = 300) throws -> [Data] {
        try TestImages.make((0..<count).map {
            TestImages.jpeg(folder.appendingPathComponent("photo-\(seed + $0).jpg").path, width: width, height: height, seed: seed + $0)
        })
    }

    /// SIGTERM to every daemon; their exit statuses. One that does not exit is named.
    func terminate() throws -> [Int32] {
        try daemons.indices.map { host in
            do {
                return try daemons[host].terminate()
            } catch {
                throw TestFailure("\(hostName(host)) (pid \(daemons[host].process.processIdentifier)): \(error)")
            }
        }
    }

    /// Stops every daemon at once and removes the namespaces, the servers and the folders.
    func remove() {
        daemons.forEach { $0.kill() }
        server.remove()
        bucket?.remove()
        lab.remove()
        worlds.forEach { $0.remove() }
    }

    private func start(_ index: Int, environment: [String: String] = [:]) throws -> RunningDaemon {
        let host = lab.hosts[index]
        let world = worlds[index]
        let storage = bucket.map { bucket in
            [
                "--storage", "s3://\(bucket.bucket)/\(Self.bucketPrefix.dropLast())", "--storage-endpoint", bucket.endpoint,
                "--storage-credentials-file", Self.keys(of: world), "--web-listen", "unix:" + Self.webSocket(of: world),
            ]
        } ?? ["--state-dir", sharedState.path]
        return try RunningDaemon(
            world: world,
            extra: [
                "--catalog", "postgresql://\(server.role)@\(host.gateway):\(server.port)/\(server.database)",
                "--catalog-password-file", server.passwordFile, "--host-name", hostName(index), "--workers", "2",
            ] + storage
                + (sharedInbox ? ["--inbox", worlds[0].inbox.path, "--rejected", worlds[0].rejected.path, "--watch", "poll"] : []),
            environment: environment, launcher: lab.launcher(for: host))
    }
}
