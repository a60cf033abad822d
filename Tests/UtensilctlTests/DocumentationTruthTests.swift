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

    /// The lines of fenced code blocks that run `utensilctl`, without `sudo`, a path before it
    /// or a trailing comment.
    static func exampleLines(_ document: String) -> [String] {
        var inBlock = false
        var lines: [String] = []
        for raw in RepositoryDocuments.text(document).split(separator: "\n", omittingEmptySubsequences: false) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("```") { inBlock.toggle(); continue }
            guard inBlock else { continue }
            var words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            if words.first == "$" { words.removeFirst() }
            while let first = words.first, first == "sudo" || first.contains("=") { words.removeFirst() }
            guard let first = words.first, first == "utensilctl" || first.hasSuffix("/utensilctl") else { continue }
            lines.append(words.joined(separator: " "))
        }
        return lines
    }

    /// Shell words of an example line, up to a comment, a pipe, a redirection or a `;`; a
    /// command substitution `$(…)` stands for one word.
    static func shellWords(_ example: String) -> [String] {
        let line = example.replacingOccurrences(of: #"\$\([^)]*\)"#, with: "SUBSTITUTED", options: .regularExpression)
        var words: [String] = []
        var current = ""
        var inWord = false
        var quote: Character?
        for character in line {
            if let open = quote {
                if character == open { quote = nil } else { current.append(character) }
                continue
            }
            switch character {
            case "'", "\"": quote = character; inWord = true
            case " ", "\t":
                if inWord { words.append(current); current = ""; inWord = false }
            case "#" where !inWord, "|", ";", ">", "<", "&":
                if inWord { words.append(current) }
                return words
            default: current.append(character); inWord = true
            }
        }
        if inWord { words.append(current) }
        return words
    }

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
            for line in Self.exampleLines(document) {
                var words = Self.shellWords(line)
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
