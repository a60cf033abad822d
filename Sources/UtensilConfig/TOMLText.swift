/// Text helpers shared by rendering and error messages: TOML literals that are always one line.
enum TOMLText {
    /// `s` as a TOML basic string: quotes, backslashes and control characters escaped.
    static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// A name (variable, flag) as is when it is plain, else quoted so a message stays one line.
    static func displayName(_ name: String) -> String {
        let plain = !name.isEmpty && name.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F && $0 != "\"" }
        return plain ? name : quoted(name)
    }

    /// A finite `Double` as a TOML float (`2.0`, `0.5`, `1e+16`): Swift's shortest round-tripping form.
    static func float(_ value: Double) -> String { value.description }

    /// Permission bits as a quoted four-digit octal string: `"0660"`.
    static func mode(_ mode: UInt32) -> String {
        let digits = String(mode, radix: 8)
        return "\"" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits + "\""
    }
}
