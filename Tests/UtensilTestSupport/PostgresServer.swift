import Foundation
import Glibc

/// A private PostgreSQL 15 server for one test: `initdb` into a fresh temporary folder, the
/// server listening on a Unix socket in that folder and on a free loopback port, a role
/// (``role``) that logs in with a password (scram-sha-256) owning a database (``database``).
///
/// PostgreSQL refuses to run as root: when the tests run as root, the folder is given to the
/// `postgres` system user (made by Debian's `postgresql-15` package, which `make unit-test`
/// installs) and every server program runs as that user through `runuser`. The superuser
/// `postgres` may log in without a password over the socket only (whose folder is private to
/// the server's user), for the test's own administration (``superuserSQL(_:database:)``).
///
/// ``stop(_:)`` and ``start()`` stop and start the same server mid-test (an outage);
/// ``remove()`` stops it at once and deletes the folder (also done when the last reference
/// goes). Missing binaries fail the test with the package to install.
public final class PostgresServer: Sendable {
    /// Where Debian's `postgresql-15` puts the server programs.
    public static let binaries = "/usr/lib/postgresql/15/bin"
    public static let package = "postgresql-15"

    /// The temporary folder: the data directory, the socket, the log and the password file.
    public let folder: URL
    /// The loopback TCP port (the socket file is `.s.PGSQL.<port>` in ``folder``).
    public let port: Int
    /// The test role: LOGIN with ``password``, owner of ``database``.
    public let role = "utensil"
    public let database = "utensils"
    public let password: String

    public var dataDirectory: String { folder.appendingPathComponent("data").path }
    /// The folder holding the Unix socket.
    public var socketDirectory: String { folder.path }
    public var logFile: String { folder.appendingPathComponent("postgres.log").path }
    /// A file holding ``password`` and nothing else (readable by the tests' user), for `catalog_password_file`.
    public var passwordFile: String { folder.appendingPathComponent("catalog-password").path }

    /// `postgresql://utensil@127.0.0.1:PORT/utensils`: the role over TCP.
    public var tcpURL: String { "postgresql://\(role)@127.0.0.1:\(port)/\(database)" }
    /// `postgresql://utensil@/utensils?host=FOLDER&port=PORT`: the role over the Unix socket.
    public var socketURL: String { "postgresql://\(role)@/\(database)?host=\(socketDirectory)&port=\(port)" }

    /// The server's log, for failure messages.
    public var log: String { (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "(no log at \(logFile))" }

    /// Addresses the server listens on besides loopback (a ``NetworkLab``'s gateways).
    public let extraListenAddresses: [String]
    /// A network (CIDR) whose clients may log in with a password, besides loopback.
    public let allowedNetwork: String?

    /// Makes a new cluster and starts it; throws (naming the package) when PostgreSQL 15 is not installed.
    /// With a `lab`, the server also listens on its gateways and lets its hosts log in.
    public init(reachableFrom lab: NetworkLab? = nil) throws {
        extraListenAddresses = lab?.gateways ?? []
        allowedNetwork = lab?.network
        for program in ["initdb", "pg_ctl", "postgres", "psql"] {
            let path = Self.binaries + "/" + program
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw TestFailure("\(path) is missing: PostgreSQL 15 is needed; apt-get install \(Self.package) (make unit-test installs it)")
            }
        }
        folder = URL(fileURLWithPath: "/tmp").appendingPathComponent("utensild-pg-\(UUID().uuidString)")
        password = (0..<4).map { _ in String(UInt64.random(in: 0...UInt64.max), radix: 16) }.joined(separator: "-")
        port = try LoopbackSocket.freePort()
        do {
            try prepareFolder()
            try initialise()
            try start()
            try superuserSQL("CREATE ROLE \(role) LOGIN PASSWORD '\(password)'")
            try superuserSQL("CREATE DATABASE \(database) OWNER \(role)")
        } catch {
            remove()
            throw error
        }
    }

    deinit { remove() }

    /// How ``stop(_:)`` stops the server (`pg_ctl stop -m`).
    public enum StopMode: String, Sendable {
        /// Clients are disconnected, the server shuts down cleanly.
        case fast
        /// The server quits at once, as if it crashed (it recovers at the next start).
        case immediate
    }

    /// Starts the server (again, after ``stop(_:)``) and waits until it accepts connections.
    public func start() throws {
        let addresses = (["127.0.0.1"] + extraListenAddresses).joined(separator: ",")
        let options = "-k \(socketDirectory) -p \(port) -c listen_addresses=\(addresses)"
        let result = try PostgresCommand.run(
            "pg_ctl", ["-D", dataDirectory, "-w", "-t", "60", "-l", logFile, "-o", options, "start"], in: folder)
        guard result.status == 0 else {
            throw TestFailure("pg_ctl start failed (\(result.status)): \(result.output)\n\(log)")
        }
    }

    /// Stops the server and waits until it is gone.
    public func stop(_ mode: StopMode = .fast) throws {
        let result = try PostgresCommand.run("pg_ctl", ["-D", dataDirectory, "-w", "-t", "60", "-m", mode.rawValue, "stop"], in: folder)
        guard result.status == 0 else {
            throw TestFailure("pg_ctl stop -m \(mode.rawValue) failed (\(result.status)): \(result.output)\n\(log)")
        }
    }

    /// Whether the server is running (its `postmaster.pid` exists).
    public var isRunning: Bool {
        FileManager.default.fileExists(atPath: dataDirectory + "/postmaster.pid")
    }

    /// Stops the server (immediately; cleanly if that fails) and deletes its folder. Safe to call twice.
    public func remove() {
        if isRunning, (try? stop(.immediate)) == nil { try? stop(.fast) }
        removeTree(folder.path)
    }

    /// Runs `sql` as the superuser over the socket (psql, stopping at the first error); returns
    /// the rows as psql prints them unaligned (`|` between columns).
    @discardableResult
    public func superuserSQL(_ sql: String, database: String = "postgres") throws -> String {
        let result = try PostgresCommand.run(
            "psql", ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", socketDirectory, "-p", String(port),
                     "-U", "postgres", "-d", database, "-c", sql],
            in: folder, asServerUser: false)
        guard result.status == 0 else { throw TestFailure("psql as postgres failed (\(result.status)): \(result.output)") }
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Adds a role that may log in with `password` and nothing more (no database of its own).
    public func addRole(_ name: String, password: String) throws {
        try superuserSQL("CREATE ROLE \(name) LOGIN PASSWORD '\(password)'")
    }

    // MARK: Setting up

    private func prepareFolder() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        try Data((password + "\n").utf8).write(to: URL(fileURLWithPath: passwordFile))
        guard chmod(passwordFile, 0o600) == 0 else { throw TestFailure("chmod \(passwordFile): \(String(cString: strerror(errno)))") }
        if getuid() == 0 {
            // The server's user owns the folder (its data directory and socket); the password
            // file stays the tests' own.
            guard let user = getpwnam("postgres") else {
                throw TestFailure("there is no postgres user: apt-get install \(Self.package) (make unit-test installs it) makes it")
            }
            guard chown(folder.path, user.pointee.pw_uid, user.pointee.pw_gid) == 0 else {
                throw TestFailure("chown postgres \(folder.path): \(String(cString: strerror(errno)))")
            }
        }
        guard chmod(folder.path, 0o700) == 0 else { throw TestFailure("chmod \(folder.path): \(String(cString: strerror(errno)))") }
    }

    private func initialise() throws {
        let result = try PostgresCommand.run(
            "initdb", ["-D", dataDirectory, "-U", "postgres", "-A", "trust", "--encoding=UTF8", "--locale=C.UTF-8",
                       "--no-sync", "--no-instructions"],
            in: folder)
        guard result.status == 0 else { throw TestFailure("initdb failed (\(result.status)): \(result.output)") }
        // The superuser without a password over the private socket only; everyone else with a
        // password (scram-sha-256), over the socket and loopback TCP.
        let rules = """
            local all postgres trust
            local all all scram-sha-256
            host all all 127.0.0.1/32 scram-sha-256
            """ + (allowedNetwork.map { "\nhost all all \($0) scram-sha-256" } ?? "")
        try Data((rules + "\n").utf8).write(to: URL(fileURLWithPath: dataDirectory + "/pg_hba.conf"))
    }
}

/// Runs PostgreSQL's programs: the server's as its user (`runuser -u postgres` when the tests
/// run as root), in `folder`, their output (both streams) gathered in a file.
///
/// Not with Foundation's `Process`: it learns that a child ended when a socket the child
/// inherited closes, and `pg_ctl start` leaves the server running in the background holding
/// every descriptor it inherited, so `waitUntilExit()` would never return. Here the child
/// gets standard input, output and error only (every other descriptor is closed) and is
/// waited for with `waitpid`.
enum PostgresCommand {
    struct Result {
        var status: Int32
        var output: String
    }

    static func run(_ program: String, _ arguments: [String], in folder: URL, asServerUser: Bool = true) throws -> Result {
        let path = PostgresServer.binaries + "/" + program
        var argv = ["/usr/bin/env", "--chdir=" + folder.path, path] + arguments
        if asServerUser && getuid() == 0 { argv = ["/usr/sbin/runuser", "-u", "postgres", "--"] + argv }
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PG") }
        environment["LC_ALL"] = "C.UTF-8"

        let outputPath = folder.appendingPathComponent("command-\(UUID().uuidString).out").path
        let output = open(outputPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw TestFailure("cannot create \(outputPath): \(String(cString: strerror(errno)))") }
        defer {
            close(output)
            unlink(outputPath)
        }
        let status = try spawnAndWait(argv, environment: environment, output: output)
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        return Result(status: status, output: text)
    }

    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// `argv` with /dev/null as standard input, `output` as standard output and error, no
    /// other descriptor; its exit status (128 + the signal when a signal ended it).
    private static func spawnAndWait(_ argv: [String], environment: [String: String], output: Int32) throws -> Int32 {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
            throw TestFailure("this C library has no posix_spawn_file_actions_addclosefrom_np (glibc 2.34 or later has it)")
        }
        let addCloseFrom = unsafeBitCast(symbol, to: AddCloseFrom.self)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, output, 1)
        posix_spawn_file_actions_adddup2(&actions, output, 2)
        guard addCloseFrom(&actions, 3) == 0 else { throw TestFailure("posix_spawn_file_actions_addclosefrom_np failed") }

        let cArguments = argv.map { strdup($0) } + [nil]
        let cEnvironment = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (cArguments + cEnvironment).forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, argv[0], &actions, nil, cArguments, cEnvironment)
        guard spawned == 0 else { throw TestFailure("cannot run \(argv[0]): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw TestFailure("waitpid \(argv[0]): \(String(cString: strerror(errno)))") }
        }
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }
}
