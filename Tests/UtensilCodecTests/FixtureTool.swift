import Foundation
import Testing

/// Runs the machine's Python 3 with Pillow (Debian's `python3-pil`) to make test images, and
/// the reference tools for the quality test. A missing tool is a test failure, never a skip.
enum FixtureTool {
    /// Debian's interpreter (the one `python3-pil` and `python3-numpy` install into); a `python3`
    /// earlier on PATH (pyenv and the like) usually lacks Pillow.
    static let python = "/usr/bin/python3"
    static let vipsthumbnail = "/usr/bin/vipsthumbnail"
    /// Tests/Fixtures: `phone_photos.py` writes HEIC files heif-enc cannot (rotated, tiled) and bombs.
    static let fixtureFolder = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures").path

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// A fresh temporary folder, removed by `body`'s end.
    static func withTemporaryFolder<T>(_ body: (URL) throws -> T) throws -> T {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("utensil-codec-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        return try body(folder)
    }

    /// Runs `script` (after the helpers in ``FixtureScripts/library``) in `folder`; returns stdout.
    @discardableResult
    static func runPython(_ script: String, in folder: URL) throws -> String {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw Failure(description: "\(python) is missing: install Debian's python3, python3-pil and python3-numpy")
        }
        let source = folder.appendingPathComponent("fixtures-\(UUID().uuidString).py")
        let prelude = "import sys\nsys.path.insert(0, \(String(reflecting: fixtureFolder)))\n"
        try (prelude + FixtureScripts.library + "\n" + script).write(to: source, atomically: true, encoding: .utf8)
        return try run(python, [source.path], in: folder)
    }

    /// Runs a program, failing with its stderr when it exits non-zero.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String], in folder: URL) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = folder
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
        process.environment = environment
        // stderr goes to a file, so only one pipe needs draining while the child runs.
        let errorFile = folder.appendingPathComponent("stderr-\(UUID().uuidString).txt")
        guard FileManager.default.createFile(atPath: errorFile.path, contents: nil) else {
            throw Failure(description: "cannot create \(errorFile.path)")
        }
        let errorHandle = try FileHandle(forWritingTo: errorFile)
        defer { try? FileManager.default.removeItem(at: errorFile) }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = errorHandle
        try process.run()
        let outData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try? errorHandle.close()
        guard process.terminationStatus == 0 else {
            let message = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
            throw Failure(description: "\(executable) \(arguments.joined(separator: " ")) failed (\(process.terminationStatus)): \(message)")
        }
        return String(decoding: outData, as: UTF8.self)
    }

    /// Makes fixtures with `script` and returns every file it wrote, by name.
    static func generate(_ script: String) throws -> [String: [UInt8]] {
        try withTemporaryFolder { folder in
            try runPython(script, in: folder)
            var files: [String: [UInt8]] = [:]
            for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where !name.hasSuffix(".py") {
                files[name] = Array(try Data(contentsOf: folder.appendingPathComponent(name)))
            }
            return files
        }
    }
}
