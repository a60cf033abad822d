import Foundation
import Glibc

/// Runs the real `utensilctl` binary (built beside the tests) against a control socket, with a
/// deadline against hangs: a run that outlives it is killed and reported as a failure.
public enum Utensilctl {
    public struct Run: Sendable {
        public var status: Int32
        public var output: String
        public var errors: String
        /// How long the command took, start to exit.
        public var seconds: Double

        /// The output parsed as one JSON object (for `--json`).
        public var json: [String: Any]? {
            (try? JSONSerialization.jsonObject(with: Data(output.utf8))) as? [String: Any]
        }
    }

    /// Runs `utensilctl --socket SOCKET ARGUMENTS…`; throws if it has not exited after `timeout` seconds.
    public static func run(_ arguments: [String], socket: String, timeout: Double = 60) throws -> Run {
        try run(["--socket", socket] + arguments, environment: [:], timeout: timeout)
    }

    /// Runs `utensilctl ARGUMENTS…` as a user types it, with `environment` added to the test's
    /// (`UTENSIL_SOCKET` names the socket) and `input` on standard input; throws if it has not
    /// exited after `timeout` seconds.
    public static func run(
        _ arguments: [String], environment: [String: String], input: Data = Data(), timeout: Double = 60
    ) throws -> Run {
        let process = Process()
        process.executableURL = try UtensildProcess.built("utensilctl")
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment
        merged["NO_COLOR"] = "1"
        merged.merge(environment) { $1 }
        process.environment = merged
        let standardInput = Pipe()
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = standardInput
        process.standardOutput = output
        process.standardError = errors
        let started = Date()
        try process.run()
        if !input.isEmpty { standardInput.fileHandleForWriting.write(input) }
        try standardInput.fileHandleForWriting.close()
        // Read both pipes while waiting, so a large reply never blocks the child.
        let reader = PipeCollector(output, errors)
        let deadline = started.addingTimeInterval(timeout)
        while process.isRunning {
            guard Date() < deadline else {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                throw TestFailure("utensilctl \(arguments.joined(separator: " ")) did not answer within \(timeout) s")
            }
            usleep(5_000)  // Polling the child with a deadline.
        }
        process.waitUntilExit()
        let (out, err) = reader.finish()
        return Run(
            status: process.terminationStatus, output: String(decoding: out, as: UTF8.self),
            errors: String(decoding: err, as: UTF8.self), seconds: Date().timeIntervalSince(started))
    }
}

/// Drains two pipes on background threads until their writers close.
final class PipeCollector: @unchecked Sendable {
    private let group = DispatchGroup()
    private var out = Data()
    private var err = Data()

    init(_ output: Pipe, _ errors: Pipe) {
        group.enter()
        DispatchQueue.global().async { [self] in
            out = output.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        group.enter()
        DispatchQueue.global().async { [self] in
            err = errors.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
    }

    func finish() -> (Data, Data) {
        group.wait()
        return (out, err)
    }
}
