import Logging
import UtensilCore

/// One log entry as one line of JSON: the fields a journal entry would have (``JournalEntry``:
/// `MESSAGE`, `PRIORITY`, `SYSLOG_IDENTIFIER`, `CODE_*`, each metadata key under its journal
/// name) after `TIMESTAMP`, as `journalctl -o json` writes an entry: every value a string, and a
/// name that comes twice (two metadata keys with one journal name) an array of its values.
///
/// Always one valid line, whatever the values hold: `"`, `\` and control characters are escaped,
/// and so is every code point that could hide or reorder text on a terminal (as `\u202E`, which a
/// JSON reader turns back into the same text). Swift strings hold no invalid UTF-8: bytes that
/// were not UTF-8 arrive as U+FFFD.
enum JSONLine {
    /// The key of the time the entry was logged (ISO 8601 UTC with milliseconds); a metadata key
    /// with this journal name is written as `X_TIMESTAMP`.
    static let timestampKey = "TIMESTAMP"

    static func format(event: LogEvent, identifier: String, metadata: Logger.Metadata, timestamp: String) -> String {
        var names: [String] = [timestampKey]
        var values: [String: [String]] = [timestampKey: [timestamp]]
        for field in JournalEntry(event: event, identifier: identifier, metadata: metadata).fields {
            let name = field.name == timestampKey ? "X_" + field.name : field.name
            if values[name] == nil { names.append(name) }
            values[name, default: []].append(field.value)
        }
        var line = "{"
        for (index, name) in names.enumerated() {
            if index > 0 { line += "," }
            line += quoted(name) + ":"
            let list = values[name] ?? []
            line += list.count == 1 ? quoted(list[0]) : "[" + list.map(quoted).joined(separator: ",") + "]"
        }
        return line + "}"
    }

    /// `text` as a JSON string literal.
    static func quoted(_ text: String) -> String {
        var result = "\""
        result.unicodeScalars.reserveCapacity(text.unicodeScalars.count + 2)
        for character in text {
            let isEmojiSequence =
                character.unicodeScalars.count > 1 && character.unicodeScalars.contains { $0.properties.isEmoji }
            for scalar in character.unicodeScalars {
                switch scalar {
                case "\"": result += "\\\""
                case "\\": result += "\\\\"
                case "\n": result += "\\n"
                case "\r": result += "\\r"
                case "\t": result += "\\t"
                default:
                    if VisibleText.hides(scalar, inEmojiSequence: isEmojiSequence) {
                        for unit in String(scalar).utf16 { result += "\\u" + hex4(unit) }
                    } else {
                        result.unicodeScalars.append(scalar)
                    }
                }
            }
        }
        return result + "\""
    }

    private static func hex4(_ unit: UInt16) -> String {
        let digits = String(unit, radix: 16, uppercase: true)
        return String(repeating: "0", count: 4 - digits.count) + digits
    }
}
