import Foundation
import Glibc
import Testing
import UtensilTestSupport

/// utensild started as systemd's socket units start it, through `systemd-socket-activate`
/// (systemd's own tool: the same `LISTEN_FDS`/`LISTEN_FDNAMES` protocol), which makes the
/// sockets and starts the daemon on the first connection. `make system-test` does the same
/// with the packaged units under a real systemd.
///
/// The activator is started with `posix_spawn`, not Foundation's `Process`: it closes every
/// descriptor but the sockets before it becomes utensild, and `Process` takes that for the
/// child's exit and blocks reaping it.
@Suite("socket activation", .tags(.spawnsProcesses))
struct SocketActivationTests {
    static let activator = "/usr/bin/systemd-socket-activate"

    @Test func theControlAndWebSocketsArePassedInAndOutliveTheDaemon() throws {
        try Self.requireActivator()
        let world = try TestWorld()
        defer { world.remove() }
        let control = world.root.appendingPathComponent("control.sock").path
        let web = world.root.appendingPathComponent("web.sock").path
        let logPath = world.root.appendingPathComponent("utensild.log").path
        let notifications = try NotifyListener(folder: world.root)
        let arguments = [
            Self.activator, "-l", control, "-l", web, "--fdname=control:web",
            "-E", "NOTIFY_SOCKET=" + notifications.path, "-E", "SYSTEMD_LOG_TARGET=console",
            "-E", "SWIFT_BACKTRACE=enable=no", try UtensildProcess.binary.path,
        ] + UtensildProcess.arguments(for: world, extra: ["--web-listen", "unix:" + web])
        let pid = try Self.spawn(arguments, stderr: logPath)
        var exited = false
        defer {
            if !exited {
                kill(pid, SIGKILL)
                var status: Int32 = 0
                waitpid(pid, &status, 0)
            }
        }
        func log() -> String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

        try Poll.until("the activator's two sockets", every: 10_000) {
            FileManager.default.fileExists(atPath: control) && FileManager.default.fileExists(atPath: web)
        }
        // The first connection starts the daemon, which answers it on the socket it was given.
        let status = try Utensilctl.run(["status", "--json"], socket: control)
        #expect(status.status == 0, "\(status.errors)\n\(log())")
        #expect((status.json?["utensils"] as? Int) == 0, "\(status.output)")
        _ = try notifications.wait(for: "READY=1")
        #expect(try WebClient(socketPath: web).get("/").status == 200)
        #expect(log().contains("(from systemd)"), "\(log())")

        // Sockets systemd passed in are not the daemon's to remove: they outlive it, as a
        // socket unit's do across restarts (a daemon that had bound its own would remove it).
        #expect(kill(pid, SIGTERM) == 0)
        var waitStatus: Int32 = 0
        try Poll.until("utensild to exit after SIGTERM", every: 10_000) { waitpid(pid, &waitStatus, WNOHANG) == pid }
        exited = true
        #expect(waitStatus == 0, "wait status \(waitStatus)\n\(log())")
        #expect(FileManager.default.fileExists(atPath: control))
        #expect(FileManager.default.fileExists(atPath: web))
    }

    /// On a TCP socket from systemd, the gallery answers to that socket's address (which
    /// `web_listen` does not say) and still refuses other hosts.
    @Test func theHostCheckKnowsTheAddressOfAPassedInSocket() throws {
        try Self.requireActivator()
        let world = try TestWorld()
        defer { world.remove() }
        let port = try LoopbackSocket.freePort()
        let logPath = world.root.appendingPathComponent("utensild.log").path
        let arguments = [
            Self.activator, "-l", "127.0.0.2:\(port)", "--fdname=web", "-E", "SYSTEMD_LOG_TARGET=console",
            "-E", "SWIFT_BACKTRACE=enable=no", try UtensildProcess.binary.path,
        ] + UtensildProcess.arguments(for: world, extra: ["--web-listen", "127.0.0.1:8180"])
        let pid = try Self.spawn(arguments, stderr: logPath)
        defer {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        let web = WebClient(port: port, to: "127.0.0.2")
        // The first connection starts the daemon; poll until it answers.
        try Poll.until("the gallery on 127.0.0.2:\(port)", detail: { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }) {
            (try? web.request("GET", "/api/v1/status", host: "127.0.0.2:\(port)").status) == 200
        }
        #expect(try web.request("GET", "/", host: "localhost").status == 200)
        #expect(try web.request("GET", "/", host: "127.0.0.3:\(port)").status == 421)
        #expect(try web.request("GET", "/", host: "attacker.example:\(port)").status == 421)
    }

    static func requireActivator() throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: activator), "\(activator) (Debian's systemd package) is needed")
    }

    /// Starts `arguments` with stdin from /dev/null and stderr (and stdout) into `stderr`.
    static func spawn(_ arguments: [String], stderr: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stderr, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var environment: [UnsafeMutablePointer<CChar>?] = [strdup("PATH=/usr/sbin:/usr/bin:/sbin:/bin"), nil]
        defer { for pointer in environment { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, arguments[0], &actions, nil, &argv, &environment)
        guard result == 0 else { throw TestFailure("cannot start \(arguments[0]): \(String(cString: strerror(result)))") }
        return pid
    }
}
