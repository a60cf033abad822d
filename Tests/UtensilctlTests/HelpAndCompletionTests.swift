import Testing
import UtensilTestSupport

/// What argument-parser generates for the real binary: help, version, completions.
@Suite(.tags(.spawnsProcesses)) struct HelpAndCompletionTests {
    static let subcommands = ["status", "list", "show", "delete", "rename", "rejected", "retry", "check", "events", "categories", "set-category", "trash", "restore", "backup"]

    @Test func versionIsZeroOneZero() throws {
        let outcome = try CtlProcess.run(["--version"])
        #expect(outcome.status == 0)
        #expect(outcome.standardOutput == "0.1.0\n")
    }

    @Test(arguments: subcommands)
    func everyCommandHasHelpWithAnExample(_ command: String) throws {
        let outcome = try CtlProcess.run([command, "--help"])
        #expect(outcome.status == 0)
        #expect(outcome.standardOutput.contains("utensilctl \(command)"))
        #expect(outcome.standardOutput.contains("Example"))
        #expect(outcome.standardOutput.contains("--json"))
        #expect(outcome.standardOutput.contains("--socket"))
    }

    @Test(arguments: ["bash", "zsh", "fish"])
    func completionScriptsNameEveryCommand(_ shell: String) throws {
        let outcome = try CtlProcess.run(["--generate-completion-script", shell])
        #expect(outcome.status == 0)
        for command in Self.subcommands {
            #expect(outcome.standardOutput.contains(command), "\(shell) completion lacks \(command)")
        }
    }

    @Test func noCommandIsAUsageErrorWithHelpOnStandardError() throws {
        let outcome = try CtlProcess.run([])
        #expect(outcome.status == 64)
        #expect(outcome.standardOutput == "")
        #expect(outcome.standardError.contains("SUBCOMMANDS"))
    }
}
