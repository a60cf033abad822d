import Logging
import UtensilCore

/// One log entry as one line of text: `<level> <message>[ key=value …]`.
///
/// Line breaks, tabs, other control characters and invisible code points are escaped (`\n`,
/// `\t`, `\u{1B}`, `\u{200B}`: `VisibleText`, as `utensilctl` shows them), so an entry is
/// always exactly one line and a name in it shows what it really holds. Values with spaces, quotes, `=` or nothing are quoted
/// (logfmt style), with `"` and `\` escaped inside the quotes.
enum PlainLine {
    static func format(level: Logger.Level, message: String, metadata: Logger.Metadata) -> String {
        var line = level.rawValue + " " + escaped(message)
        for pair in MetadataFlattening.pairs(metadata) {
            line += " " + key(pair.key) + "=" + value(pair.value)
        }
        return line
    }

    /// What could hide escaped, and inside quotes also `"` and `\`; nothing else changes.
    static func escaped(_ text: String, quoted: Bool = false) -> String {
        VisibleText.escaped(text) { scalar in
            switch scalar {
            case "\"" where quoted, "\\" where quoted: "\\" + String(scalar)
            case "\n": "\\n"
            case "\r": "\\r"
            case "\t": "\\t"
            default: nil
            }
        }
    }

    /// A key never needs quotes: white space, `=` and `"` become `_`.
    static func key(_ key: String) -> String {
        String(escaped(key).map { $0.isWhitespace || $0 == "=" || $0 == "\"" ? "_" : $0 })
    }

    static func value(_ value: String) -> String {
        let needsQuotes = value.isEmpty || value.contains { $0.isWhitespace || $0 == "=" || $0 == "\"" }
        return needsQuotes ? "\"" + escaped(value, quoted: true) + "\"" : escaped(value)
    }
}
