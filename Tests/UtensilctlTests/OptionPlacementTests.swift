import Testing
@testable import utensilctl

/// `--json` and `--socket` mean the same before and after the subcommand.
@Suite struct OptionPlacementTests {
    private func options(_ arguments: [String]) throws -> GlobalOptions {
        let command = try Utensilctl.parseAsRoot(arguments)
        if let list = command as? List { return list.globals.merged(with: list.root.globals) }
        if let status = command as? Status { return status.globals.merged(with: status.root.globals) }
        Issue.record("parsed \(arguments) as \(type(of: command))")
        return try GlobalOptions.parse([])
    }

    private func summary(_ options: GlobalOptions) -> String {
        "json=\(options.json) socket=\(options.socket ?? "-")"
    }

    @Test(arguments: [
        (["list", "--json"], ["--json", "list"]),
        (["list", "--socket", "/tmp/a.sock"], ["--socket", "/tmp/a.sock", "list"]),
        (["list", "--json", "--socket=/tmp/a.sock"], ["--socket", "/tmp/a.sock", "--json", "list"]),
        (["--json", "status", "--socket", "/tmp/a.sock"], ["--socket", "/tmp/a.sock", "status", "--json"]),
    ])
    func samePlacementSameOptions(_ after: [String], _ before: [String]) throws {
        #expect(summary(try options(after)) == summary(try options(before)))
        #expect(try options(after).json == after.contains("--json"))
    }

    @Test func optionAfterTheSubcommandWins() throws {
        let merged = try options(["--socket", "/outer.sock", "list", "--socket", "/inner.sock"])
        #expect(merged.socket == "/inner.sock")
    }

    @Test func socketDefaultsToEnvironmentThenTheStandardPath() throws {
        let none = try GlobalOptions.parse([])
        #expect(none.socketPath(environment: [:]) == "/run/utensild/control.sock")
        #expect(none.socketPath(environment: ["UTENSIL_SOCKET": "/env.sock"]) == "/env.sock")
        let given = try GlobalOptions.parse(["--socket", "/flag.sock"])
        #expect(given.socketPath(environment: ["UTENSIL_SOCKET": "/env.sock"]) == "/flag.sock")
    }

    @Test func listArgumentsParse() throws {
        let list = try #require(try Utensilctl.parseAsRoot(["list", "--search", "spo", "--sort", "-created", "--limit", "3"]) as? List)
        #expect(list.search == "spo")
        #expect(list.sort == .newestFirst)
        #expect(list.limit == 3)
        let dashed = try #require(try Utensilctl.parseAsRoot(["list", "--search", "-x-", "--after", "-c2", "--sort=-created"]) as? List)
        #expect(dashed.search == "-x-")
        #expect(dashed.after == "-c2")
        #expect(dashed.sort == .newestFirst)
    }
}
