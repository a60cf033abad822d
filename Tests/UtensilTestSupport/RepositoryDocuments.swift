import Foundation

/// The repository's README and guides, for the tests that hold what they say to the code.
public enum RepositoryDocuments {
    /// The folder holding Package.swift.
    public static let root = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The README and the guides a user reads (PERFORMANCE.md and ARCHITECTURE.md are not).
    public static let guides = [
        "README.md", "docs/CONFORMANCE.md", "docs/FORMATS.md", "docs/INSTALL.md", "docs/OPERATIONS.md",
        "docs/PROTOCOL.md", "docs/RELIABILITY.md", "docs/SEVERAL-HOSTS.md", "docs/TESTING.md", "docs/WEB.md",
    ]

    /// The text of `path`, relative to ``root``; empty when there is no such file (the tests
    /// say so in their own words).
    public static func text(_ path: String) -> String {
        (try? String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)) ?? ""
    }

    /// The first capture group of every match of `pattern` in `text`; `^` and `$` match at
    /// each line.
    public static func matches(_ pattern: String, in text: String) -> [String] {
        let expression = try! NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines])
        return expression.matches(in: text, range: NSRange(text.startIndex..., in: text)).map {
            String(text[Range($0.range(at: 1), in: text)!])
        }
    }
}
