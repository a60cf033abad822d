import Foundation

/// A real systemd-journald serving `/run/systemd/journal/socket`: the one already running, or
/// one started here as root and stopped again by its pid.
enum Journald {
    static let binary = "/lib/systemd/systemd-journald"
    static let socket = "/run/systemd/journal/socket"
    /// The sockets journald binds; a journald started here leaves them behind, stale, when it stops.
    static let sockets = ["socket", "stdout", "dev-log", "io.systemd.journal"].map { "/run/systemd/journal/" + $0 }

    enum Failure: Error, CustomStringConvertible {
        case notRoot
        case didNotStart(String)
        var description: String {
            switch self {
            case .notRoot:
                "no journald is running and starting \(Journald.binary) needs root"
            case .didNotStart(let output):
                "\(Journald.binary) did not serve \(Journald.socket) in time; its output:\n\(output)"
            }
        }
    }

    /// Runs `body` while a journald serves the native socket; stops the journald it started,
    /// whether `body` returns or throws.
    static func whileRunning<Result>(_ body: () async throws -> Result) async throws -> Result {
        if DatagramSocket.isServed(socket) { return try await body() }
        let process = try await start()
        do {
            let result = try await body()
            await stop(process)
            return result
        } catch {
            await stop(process)
            throw error
        }
    }

    private static func start() async throws -> Process {
        guard geteuid() == 0 else { throw Failure.notRoot }
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        let outputPath = folder.appending("output")
        process.standardOutput = try ChildProcess.writableFile(outputPath)
        process.standardError = process.standardOutput
        try process.run()
        let serving = await Deadline.poll(timeout: .seconds(20)) {
            DatagramSocket.isServed(socket) || !process.isRunning
        }
        guard serving, process.isRunning else {
            await stop(process)
            throw Failure.didNotStart((try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "")
        }
        return process
    }

    /// SIGTERM to this pid, SIGKILL if it has not exited after 15 s; then its stale sockets go.
    private static func stop(_ process: Process) async {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        if await !Deadline.poll(timeout: .seconds(15), { !process.isRunning }) {
            kill(process.processIdentifier, SIGKILL)
        }
        process.waitUntilExit()
        for path in sockets { unlink(path) }
    }
}
