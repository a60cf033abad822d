import Glibc
import Testing
@testable import UtensilConfig

/// `on_ingest` / `on_reject`: "" or the absolute path of an executable regular file, checked
/// when the configuration is loaded, so `--check-config` says what is wrong.
@Suite struct HookProgramTests {
    @Test func emptyMeansNoHookAndAnExecutableIsTaken() throws {
        let folder = try TemporaryFolder()
        let script = try folder.write("#!/bin/sh\nexit 0\n", to: "hook.sh")
        chmod(script, 0o755)
        #expect(try load(toml: "on_ingest = \"\"", in: folder).onIngest == "")
        let config = try load(toml: "on_ingest = \"\(script)\"\non_reject = \"\(folder.path)//./hook.sh\"", in: folder)
        #expect(config.onIngest == script)
        #expect(config.onReject == script)
    }

    @Test func eachUnusableProgramIsOneLineNamingKeyAndProblem() throws {
        let folder = try TemporaryFolder()
        let plain = try folder.write("echo hi\n", to: "not-executable.sh")
        chmod(plain, 0o644)
        let cases: [(String, String)] = [
            ("hook.sh", "relative path"),
            (folder.file("missing.sh"), "does not exist"),
            (folder.path, "not a regular file"),
            (plain, "not executable"),
        ]
        for (value, problem) in cases {
            let error = try #require(try loadError(flags: [.onReject: value], in: folder))
            #expect(error.key == .onReject)
            #expect(error.description.hasPrefix("on_reject = "))
            #expect(error.description.contains(problem), "\(error)")
            #expect(!error.description.contains("\n"))
        }
        let wrongType = try #require(try loadError(toml: "on_ingest = 5", in: folder))
        #expect(wrongType.key == .onIngest)
    }

    @Test func theTimeLimitIsPositiveAndBounded() throws {
        let folder = try TemporaryFolder()
        #expect(try load(flags: [.hookTimeoutSeconds: "0.2"], in: folder).hookTimeoutSeconds == 0.2)
        #expect(try loadError(flags: [.hookTimeoutSeconds: "0"], in: folder)?.key == .hookTimeoutSeconds)
        #expect(try loadError(flags: [.hookTimeoutSeconds: "3601"], in: folder)?.key == .hookTimeoutSeconds)
    }
}
