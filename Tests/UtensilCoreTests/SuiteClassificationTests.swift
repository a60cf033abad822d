import Foundation
import Testing
import UtensilTestSupport

/// `make check` runs only the suites without the `.spawnsProcesses` tag, so a suite that starts
/// the daemon, utensilctl or a server without the tag would slip into it: scripts/list-suites
/// `--check` finds such suites in Tests/, and this keeps the tree free of them.
@Suite struct SuiteClassificationTests {
    static let repository = RepositoryDocuments.root

    struct Run {
        var status: Int32
        var output: String
        var errors: String
    }

    /// Runs scripts/list-suites with `arguments` (its output in files: no pipe to fill).
    static func listSuites(_ arguments: [String]) throws -> Run {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("list-suites-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let outputFile = folder.appendingPathComponent("out")
        let errorFile = folder.appendingPathComponent("err")
        try Data().write(to: outputFile)
        try Data().write(to: errorFile)
        let output = try FileHandle(forWritingTo: outputFile)
        let errors = try FileHandle(forWritingTo: errorFile)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [repository.appendingPathComponent("scripts/list-suites").path] + arguments
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        try output.close()
        try errors.close()
        return Run(
            status: process.terminationStatus,
            output: try String(contentsOf: outputFile, encoding: .utf8),
            errors: try String(contentsOf: errorFile, encoding: .utf8))
    }

    /// A Tests/ folder of one target, `FakeTests`, holding `files` (name → source).
    static func fakeTests(_ files: [String: String]) throws -> URL {
        let tests = FileManager.default.temporaryDirectory.appendingPathComponent("fake-tests-\(UUID().uuidString)")
        let target = tests.appendingPathComponent("FakeTests")
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        for (name, source) in files {
            try Data(source.utf8).write(to: target.appendingPathComponent(name))
        }
        return tests
    }

    static let fakeSources = [
        "Loud.swift": """
            @Suite("a daemon", .serialized, .tags(.spawnsProcesses))
            struct Loud {
                static func start() throws -> RunningDaemon { try RunningDaemon(world: TestWorld()) }
                @Test func starts() throws { _ = try Self.start() }
            }
            """,
        "Quiet.swift": """
            // RunningDaemon, in a comment only.
            @Suite struct Quiet {
                @Test func adds() { #expect(1 + 1 == 2) }
            }
            """,
        "Direct.swift": """
            @Suite(.serialized)
            struct Direct {
                @Test func starts() throws { _ = try UtensildProcess.run(["--oneshot"]) }
            }
            """,
        "Borrowed.swift": """
            @Suite struct Borrowed {
                @Test func startsLoudsDaemon() throws { _ = try Loud.start() }
            }
            """,
        "Lab.swift": """
            enum Lab {
                static func server() throws -> PostgresServer { try PostgresServer() }
            }
            """,
        "Indirect.swift": """
            struct Indirect {
                @Test func usesTheLab() throws { _ = try Lab.server() }
            }
            """,
    ]

    @Test func everySuiteThatSpawnsProcessesIsTagged() throws {
        let run = try Self.listSuites(["--check"])
        #expect(run.status == 0, "\(run.errors)")
    }

    @Test func anUntaggedSuiteThatSpawnsIsNamed() throws {
        let tests = try Self.fakeTests(Self.fakeSources)
        defer { try? FileManager.default.removeItem(at: tests) }
        let run = try Self.listSuites(["--check", "--tests", tests.path])
        #expect(run.status == 1)
        let named = Set(run.errors.split(separator: "\n").map { String($0.split(separator: " ")[0]) })
        #expect(named == ["FakeTests.Direct", "FakeTests.Borrowed", "FakeTests.Indirect"], "\(run.errors)")
    }

    @Test func theSkipExpressionMatchesTaggedSuitesOnly() throws {
        let tests = try Self.fakeTests(Self.fakeSources)
        defer { try? FileManager.default.removeItem(at: tests) }
        let listed = try Self.listSuites(["--tests", tests.path])
        #expect(listed.output.contains("FakeTests.Loud\tspawned\n"), "\(listed.output)")
        #expect(listed.output.contains("FakeTests.Quiet\tin-process\n"), "\(listed.output)")
        let run = try Self.listSuites(["--skip", "--tests", tests.path])
        #expect(run.status == 0, "\(run.errors)")
        let skip = try Regex(run.output.trimmingCharacters(in: .whitespacesAndNewlines))
        for id in ["FakeTests.Loud", "FakeTests.Loud/starts()"] {
            #expect(id.firstMatch(of: skip) != nil, "\(id) is not skipped by \(run.output)")
        }
        for id in ["FakeTests.Quiet/adds()", "FakeTests.LoudToo/starts()", "OtherTests.Loud/starts()"] {
            #expect(id.firstMatch(of: skip) == nil, "\(id) is skipped by \(run.output)")
        }
    }
}
