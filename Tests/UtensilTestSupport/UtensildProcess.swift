import Foundation
import Testing

/// Runs the real `utensild` binary built next to the test bundle.
public struct UtensildProcess {
    /// `.build/<configuration>/utensild`, beside the test bundle.
    public static var binary: URL {
        get throws { try built("utensild") }
    }

    /// A product built beside the test bundle (`utensild`, `utensilctl`), or in
    /// `$UTENSIL_TEST_BIN_DIR` when that is set (`make release-test` points it at the release
    /// binaries of the package).
    public static func built(_ name: String) throws -> URL {
        if let folder = ProcessInfo.processInfo.environment["UTENSIL_TEST_BIN_DIR"], !folder.isEmpty {
            let candidate = URL(fileURLWithPath: folder).appendingPathComponent(name)
            guard FileManager.default.isExecutableFile(atPath: candidate.path) else {
                throw TestFailure("UTENSIL_TEST_BIN_DIR=\(folder) has no executable \(name)")
            }
            return candidate
        }
        do {
            let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            var folder = bundle.deletingLastPathComponent()
            while folder.path != "/" {
                let candidate = folder.appendingPathComponent(name)
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
                folder = folder.deletingLastPathComponent()
            }
            throw TestFailure("the \(name) binary was not found beside \(bundle.path); run `swift build --build-tests` first")
        }
    }

    public struct Result: Sendable {
        public var status: Int32
        public var killedBySignal: Bool
        public var output: String
        public var errors: String
    }

    /// The flags that point utensild at a test world; the web gallery is off unless `extra`
    /// names a `--web-listen` (tests run side by side, and would fight over one port).
    public static func arguments(for world: TestWorld, extra: [String] = []) -> [String] {
        [
            "--config", "/dev/null",
            "--inbox", world.inbox.path, "--rejected", world.rejected.path, "--state-dir", world.state.path,
            "--control-socket", world.root.appendingPathComponent("control.sock").path,
            "--settle-seconds", "0", "--log-level", "debug",
        ] + (extra.contains("--web-listen") ? [] : ["--web-listen", ""]) + extra
    }

    /// Starts utensild; with a `launcher` (a program and its arguments, which must end by
    /// running the binary and arguments it is given, as `unshare … --` does), through it.
    public static func start(
        _ arguments: [String], environment: [String: String] = [:], launcher: [String] = []
    ) throws -> (Process, Pipe, Pipe) {
        let process = Process()
        if let program = launcher.first {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = Array(launcher.dropFirst()) + [try binary.path] + arguments
        } else {
            process.executableURL = try binary
            process.arguments = arguments
        }
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("UTENSILD_") }
        env["SWIFT_BACKTRACE"] = "enable=no"
        env["SYSTEMD_LOG_TARGET"] = "console"  // Logs on stderr, even while a test runs journald.
        env.removeValue(forKey: "NOTIFY_SOCKET")
        env.merge(environment) { $1 }
        process.environment = env
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        return (process, output, errors)
    }

    /// Runs utensild to completion (through `launcher`, as ``start(_:environment:launcher:)``).
    public static func run(_ arguments: [String], environment: [String: String] = [:], launcher: [String] = []) throws -> Result {
        let (process, output, errors) = try start(arguments, environment: environment, launcher: launcher)
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, killedBySignal: process.terminationReason == .uncaughtSignal,
            output: String(decoding: out, as: UTF8.self), errors: String(decoding: err, as: UTF8.self))
    }
}
