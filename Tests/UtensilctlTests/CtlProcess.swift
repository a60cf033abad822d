import Foundation
import Testing

/// Runs the real `utensilctl` binary, built beside this test bundle.
struct CtlProcess {
    struct Outcome {
        var status: Int32
        var standardOutput: String
        var standardError: String

        var outputLines: [String] { standardOutput.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }
    }

    /// The `utensilctl` executable found by walking up from the test bundle's path.
    static let executable: URL? = {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<6 {
            let candidate = folder.appendingPathComponent("utensilctl")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder.deleteLastPathComponent()
        }
        return nil
    }()

    /// Runs `utensilctl arguments…` with `environment` added to a clean one (no colour, no
    /// `UTENSIL_SOCKET` unless given), optionally wrapped (`["setpriv", …]`), and waits.
    static func run(
        _ arguments: [String], environment: [String: String] = [:], wrappedIn wrapper: [String] = [],
        executable: URL? = nil
    ) throws -> Outcome {
        let binary = try #require(executable ?? Self.executable, "utensilctl was not built beside the tests")
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("utensilctl-out-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outURL = scratch.appendingPathComponent("out")
        let errURL = scratch.appendingPathComponent("err")
        try Data().write(to: outURL)
        try Data().write(to: errURL)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)

        let process = Process()
        if let tool = wrapper.first {
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = Array(wrapper.dropFirst()) + [binary.path] + arguments
        } else {
            process.executableURL = binary
            process.arguments = arguments
        }
        var base = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "TZ": "UTC"]
        base.merge(environment) { $1 }
        process.environment = base
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try out.close()
        try err.close()
        return Outcome(
            status: process.terminationStatus,
            standardOutput: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
            standardError: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }
}
