import Foundation
import Testing
import UtensilControlProtocol

/// docs/PROTOCOL.md's request table lists every `ControlCommand` as a value of `command`, and
/// no other.
@Suite struct DocumentedCommandTests {
    @Test func theCommandRowListsEveryCommandAndNoOther() throws {
        let document = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/PROTOCOL.md")
        let text = try String(contentsOf: document, encoding: .utf8)
        let row = try #require(
            text.split(separator: "\n").first { $0.hasPrefix("| `command` |") },
            "docs/PROTOCOL.md has no \"| `command` |\" row in its request table")
        let values = row.split(separator: "|").last ?? ""
        let documented = Set(values.matches(of: /`([a-z-]+)`/).map { String($0.output.1) })
        let commands = Set(ControlCommand.allCases.map(\.rawValue))
        for name in commands.subtracting(documented).sorted() {
            Issue.record("the control protocol has the command \(name), which docs/PROTOCOL.md's `command` row does not list: add it")
        }
        for name in documented.subtracting(commands).sorted() {
            Issue.record("docs/PROTOCOL.md's `command` row lists \(name), which is no ControlCommand: correct it")
        }
    }
}
