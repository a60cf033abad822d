import Logging

/// One log entry as one line of text: `<level> <message>[ key=value …]`.
///
/// Line breaks, tabs and other control characters are escaped (`\n`, `\t`, `\u{1B}`), so an
/// entry is always exactly one line. Values with spaces, quotes, `=` or nothing are quoted
/// (logfmt style), with `"` and `\` escaped inside the quotes.
enum PlainLine {
    static func format(level: Logger.Level, message: String, metadata: Logger.Metadata) -> String {
        var line = level.rawValue + " " + escaped(message)
        for pair in MetadataFlattening.pairs(metadata) {
            line += " " + key(pair.key) + "=" + value(pair.value)
        }
        return line
    }

    /// Control characters escaped, and inside quotes also `"` and `\`; nothing else changes.
    static func escaped(_ text: String, quoted: Bool = false) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"" where quoted, "\\" where quoted: result += "\\" + String(scalar)
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.properties.generalCategory == .control:
                result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
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
