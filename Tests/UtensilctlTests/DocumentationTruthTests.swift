import ArgumentParser
import Foundation
import Testing
import UtensilTestSupport
@testable import utensilctl

/// The README and the guides name `utensilctl`'s commands as they are, and every
/// `utensilctl …` example in their code blocks parses with the real command (in-process).
@Suite struct DocumentationTruthTests {
    /// Every command path: `["status"]`, `["web-user", "add"]` …
    static let commandPaths: [[String]] = {
        func paths(_ command: ParsableCommand.Type, prefix: [String]) -> [[String]] {
            command.configuration.subcommands.flatMap { sub -> [[String]] in
                let path = prefix + [sub._commandName]
                return [path] + paths(sub, prefix: path)
            }
        }
        return paths(Utensilctl.self, prefix: [])
    }()

    @Test func everyCommandIsInTheReadme() {
        let readme = RepositoryDocuments.text("README.md")
        #expect(!readme.isEmpty, "README.md not found beside Package.swift")
        for path in Self.commandPaths {
            let spelled = path.joined(separator: " ")
            let named = path.allSatisfy { name in
                readme.range(of: #"(?<![\w-])\#(name)(?![\w-])"#, options: .regularExpression) != nil
            }
            let shown = readme.contains("utensilctl \(spelled)")
            #expect(
                shown || (path.count > 1 && named) || (path.count == 1 && readme.contains(" \(spelled) ID")),
                "`utensilctl \(spelled)` is in the code but not in README.md: add it to the utensilctl block of README.md")
        }
    }

    @Test func everyDocumentedCommandExists() {
        let topLevel = Set(Self.commandPaths.filter { $0.count == 1 }.map { $0[0] })
        for document in RepositoryDocuments.guides {
            let text = RepositoryDocuments.text(document)
            #expect(!text.isEmpty, "\(document) not found")
            // `utensilctl NAME` in backticks or at the start of a code-block line; options before it skipped.
            let pattern = #"(?:`|^)(?:sudo )?utensilctl((?: +--?[a-z-]+(?: (?!-)[^ `]+)?)*) +([a-z][a-z-]*)"#
            let expression = try! NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines])
            let whole = NSRange(text.startIndex..., in: text)
            for match in expression.matches(in: text, range: whole) {
                let options = String(text[Range(match.range(at: 1), in: text)!])
                let name = String(text[Range(match.range(at: 2), in: text)!])
                if options.contains("--generate-completion-script") { continue }  // `bash|zsh|fish`
                #expect(topLevel.contains(name), "\(document) names `utensilctl \(name)`, which utensilctl has no command for: correct or remove it")
            }
        }
    }

    /// README's "Exit codes: 0; 1 …; 64 …" sentence lists utensilctl's exit statuses, and only them.
    @Test func theReadmeListsTheExitCodes() throws {
        let readme = RepositoryDocuments.text("README.md")
        let sentence = try #require(readme.components(separatedBy: "Exit codes: ").dropFirst().first?.components(separatedBy: ". ").first)
        let documented = Set(sentence.matches(of: /(?:^|; )(\d+)/).compactMap { Int32($0.output.1) })
        let statuses: Set<Int32> = [
            ExitStatus.success, ExitStatus.failure, ExitStatus.usage, ExitStatus.unavailable, ExitStatus.permissionDenied,
        ]
        #expect(documented == statuses, "README.md's \"Exit codes:\" sentence lists \(documented.sorted()), utensilctl exits with \(statuses.sorted()): make them agree")
    }

    @Test func everyExampleLineParses() {
        var examples = 0
        for document in RepositoryDocuments.guides {
            for line in RepositoryDocuments.exampleLines(document) {
                var words = RepositoryDocuments.shellWords(line)
                words.removeFirst()
                examples += 1
                do {
                    _ = try Utensilctl.parseAsRoot(words)
                } catch {
                    #expect(
                        Utensilctl.exitCode(for: error) == .success,
                        "\(document): `\(line)` does not parse (\(Utensilctl.message(for: error))): correct the example")
                }
            }
        }
        #expect(examples > 20)
    }
}
