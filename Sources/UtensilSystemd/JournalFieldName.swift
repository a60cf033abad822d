/// Turns a swift-log metadata key into a valid journal field name.
///
/// journald accepts `A–Z`, `0–9` and `_`, at most 64 characters, not starting with a digit, and
/// reserves a leading `_` for fields it adds itself. Keys already valid (`MESSAGE_ID`,
/// `UTENSIL_ID`) pass unchanged.
enum JournalFieldName {
    static let maximumLength = 64

    /// The name `key` is sent under:
    /// - lower-case ASCII letters are upper-cased;
    /// - each run of other characters (`-`, `.`, space, non-ASCII …) becomes one `_`;
    /// - leading and trailing `_` are stripped;
    /// - a name starting with a digit gets the prefix `X_`, an empty one becomes `X_UNNAMED`;
    /// - the result is cut to 64 characters.
    static func sanitized(_ key: String) -> String {
        var name: [UInt8] = []
        var pendingSeparator = false
        for byte in key.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"):
                if pendingSeparator { name.append(UInt8(ascii: "_")) }
                pendingSeparator = false
                name.append(byte)
            case UInt8(ascii: "a")...UInt8(ascii: "z"):
                if pendingSeparator { name.append(UInt8(ascii: "_")) }
                pendingSeparator = false
                name.append(byte - 32)
            default:
                pendingSeparator = true
            }
        }
        var trimmed = name.drop { $0 == UInt8(ascii: "_") }
        while trimmed.last == UInt8(ascii: "_") { trimmed.removeLast() }
        var result = String(decoding: trimmed, as: UTF8.self)
        if result.isEmpty {
            result = "X_UNNAMED"
        } else if let first = trimmed.first, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) {
            result = "X_" + result
        }
        return String(result.prefix(maximumLength))
    }
}
