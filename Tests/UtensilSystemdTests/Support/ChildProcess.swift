import Foundation

/// Runs a program to its end (bounded by a deadline), its stdout and stderr captured in files.
struct ChildProcess {
    struct Finished {
        var status: Int32
        var output: String
        var errors: String
        /// Both streams, for failure messages.
        var transcript: String { "exit status \(status)\nstdout:\n\(output)\nstderr:\n\(errors)" }
    }

    enum Failure: Error, CustomStringConvertible {
        case timedOut(String)
        var description: String {
            switch self {
            case .timedOut(let program): "\(program) did not finish in time and was killed"
            }
        }
    }

    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        timeout: Duration = .seconds(60)
    ) async throws -> Finished {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardOutput = try writableFile(folder.appending("stdout"))
        process.standardError = try writableFile(folder.appending("stderr"))
        try process.run()
        guard await Deadline.poll(timeout: timeout, { !process.isRunning }) else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw Failure.timedOut(executable)
        }
        return Finished(
            status: process.terminationStatus, output: read(folder.appending("stdout")),
            errors: read(folder.appending("stderr")))
    }

    static func writableFile(_ path: String) throws -> FileHandle {
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        return try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    }

    private static func read(_ path: String) -> String {
        (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }
}
