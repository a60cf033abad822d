/// Reading `socket_mode`, which is always octal permission bits.
///
/// Accepted forms: the strings `"0660"`, `"660"` and `"0o660"` (file, environment and flags alike),
/// and in the file the integers `0o660` (TOML's octal literal), `660` (a decimal literal is read
/// as octal digits, as chmod would) and `0x1b0` / `0b110110000` (by value).
/// TOMLKit reports only the value of an integer, not how it was written, so the literal is looked
/// up in the file's text (``integerLiteral(in:value:)``).
enum SocketMode {
    static func fromText(_ text: String) throws(SettingProblem) -> UInt32 {
        let digits = text.hasPrefix("0o") ? String(text.dropFirst(2)) : text
        guard !digits.isEmpty, digits.allSatisfy({ ("0"..."7").contains($0) }) else {
            throw SettingProblem("is not an octal mode; write permission bits with digits 0 to 7, like \"0660\"")
        }
        return try checked(UInt32(digits, radix: 8))
    }

    static func fromInteger(_ value: Int, literal: String?) throws(SettingProblem) -> UInt32 {
        guard let literal else {
            throw SettingProblem("cannot tell whether this integer is written in octal; write it as a string, like socket_mode = \"0660\"")
        }
        let plain = String(literal.filter { $0 != "_" && $0 != "+" })
        if plain.hasPrefix("-") { throw SettingProblem("is negative; give permission bits like \"0660\"") }
        if plain.hasPrefix("0o") || plain.hasPrefix("0x") || plain.hasPrefix("0b") {
            return try checked(UInt32(exactly: value))
        }
        guard plain.allSatisfy({ ("0"..."7").contains($0) }) else {
            throw SettingProblem("has a digit 8 or 9, so it is not an octal mode; write it like 0o660 or \"0660\"")
        }
        return try checked(UInt32(plain, radix: 8))
    }

    private static func checked(_ mode: UInt32?) throws(SettingProblem) -> UInt32 {
        guard let mode, mode <= Limits.socketModeMaximum else {
            throw SettingProblem("is more than 0777; give only permission bits, like \"0660\"")
        }
        return mode
    }

    /// How the top-level `socket_mode = <integer>` was written in `source`, if exactly one
    /// literal with that `value` is found (anything else, say a look-alike line inside a
    /// multi-line string, makes the answer unknown rather than a guess).
    static func integerLiteral(in source: String, value: Int) -> String? {
        var found: Set<String> = []
        for line in source.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline) {
            guard let literal = literalAfterKey(in: line), tomlIntegerValue(literal) == value else { continue }
            found.insert(String(literal))
        }
        return found.count == 1 ? found.first : nil
    }

    private static func literalAfterKey(in line: Substring) -> Substring? {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        var rest = line.drop(while: blank)
        guard let key = ["socket_mode", "\"socket_mode\"", "'socket_mode'"].first(where: { rest.hasPrefix($0) }) else {
            return nil
        }
        rest = rest.dropFirst(key.count).drop(while: blank)
        guard rest.first == "=" else { return nil }
        rest = rest.dropFirst().drop(while: blank)
        let literal = rest.prefix(while: { !blank($0) && $0 != "#" })
        let after = rest.dropFirst(literal.count).drop(while: blank)
        guard !literal.isEmpty, after.isEmpty || after.first == "#" else { return nil }
        return literal
    }

    /// The value of a TOML integer literal, or nil when `literal` is not one.
    static func tomlIntegerValue(_ literal: Substring) -> Int? {
        let plain = String(literal.filter { $0 != "_" })
        for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] where plain.hasPrefix(prefix) {
            return Int(plain.dropFirst(2), radix: radix)
        }
        return Int(plain)
    }
}
