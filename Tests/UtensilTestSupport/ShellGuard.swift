import Foundation

/// A change to the machine that must not outlive the test — a mount, an immutable flag — made
/// by a tiny shell that undoes it as soon as its stdin closes: when the test releases it, or
/// when the test process dies, even by `kill -9`.
final class ShellGuard: @unchecked Sendable {
    let process = Process()
    private let keepAlive = Pipe()

    /// Runs `setup` (which must succeed), then holds until released, then runs `teardown`.
    init(setup: String, teardown: String, what: String) throws {
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "set -e\n\(setup)\necho ready\nset +e\ncat >/dev/null\n\(teardown)\n"]
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = keepAlive
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
        guard line.contains("ready") else {
            let message = String(decoding: errors.fileHandleForReading.availableData, as: UTF8.self)
            release()
            throw TestFailure("could not \(what): \(message)")
        }
    }

    deinit { release() }

    /// Runs the teardown and waits for it.
    func release() {
        try? keepAlive.fileHandleForWriting.close()
        if process.isRunning { process.waitUntilExit() }
    }

    static func quoted(_ path: String) -> String { "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'" }
}

/// Files made immutable (`chattr +i`: not even root may write them, nor through descriptors
/// already open — on ext4; tmpfs ignores the flag for open files) until released.
public final class ImmutableFiles: @unchecked Sendable {
    private let shell: ShellGuard

    public init(_ paths: [String]) throws {
        let list = paths.map(ShellGuard.quoted).joined(separator: " ")
        shell = try ShellGuard(setup: "chattr +i \(list)", teardown: "chattr -i \(list)", what: "chattr +i \(list)")
    }

    public func release() { shell.release() }
}
