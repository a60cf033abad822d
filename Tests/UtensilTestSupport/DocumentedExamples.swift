import Foundation

extension RepositoryDocuments {
    /// The lines of `document`'s fenced code blocks that run `utensilctl`, without a `$ `
    /// prompt, `sudo`, `NAME=value` before it or a trailing comment kept apart: what a reader
    /// would type, from `utensilctl` on.
    public static func exampleLines(_ document: String) -> [String] {
        var inBlock = false
        var lines: [String] = []
        for raw in text(document).split(separator: "\n", omittingEmptySubsequences: false) {
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
    /// command substitution `$(…)` stands for one word, `SUBSTITUTED`.
    public static func shellWords(_ example: String) -> [String] {
        splitShellWords(example).words
    }

    /// The character that ended an example's command before its end of line (`|`, `;`, `>`,
    /// `<`, `&`): more shell follows it. Nil when the command runs to the end or a comment.
    public static func shellContinuation(_ example: String) -> Character? {
        splitShellWords(example).stop
    }

    private static func splitShellWords(_ example: String) -> (words: [String], stop: Character?) {
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
            case "#" where !inWord:
                return (words, nil)
            case "|", ";", ">", "<", "&":
                if inWord { words.append(current) }
                return (words, character)
            default: current.append(character); inWord = true
            }
        }
        if inWord { words.append(current) }
        return (words, nil)
    }
}
