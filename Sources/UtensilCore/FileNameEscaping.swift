/// File names are bytes on Linux; the control protocol carries text. This is the one
/// reversible way a name travels as text: valid UTF-8 stays as it is, a backslash becomes
/// `\\`, and every byte that is not part of valid UTF-8 becomes `\xNN` (two upper-case hex
/// digits). `rejected` prints names this way and `retry` takes them back.
///
/// Reading back is lenient, so that what `utensilctl` shows can be pasted: besides `\\` and
/// `\xNN` it takes `\u{…}` (the form `utensilctl` shows control characters in), and a
/// backslash that starts none of these stands for itself.
public enum FileNameEscaping {
    /// The text form of the name `bytes`.
    public static func escaped(_ bytes: some Collection<UInt8>) -> String {
        var result = ""
        var rest = bytes[...]
        while !rest.isEmpty {
            let validLength = validUTF8Prefix(rest)
            let valid = rest.prefix(validLength)
            for scalar in String(decoding: valid, as: UTF8.self).unicodeScalars {
                if scalar == "\\" { result += "\\\\" } else { result.unicodeScalars.append(scalar) }
            }
            rest = rest.dropFirst(validLength)
            if let byte = rest.first {
                result += "\\x" + hex(byte)
                rest = rest.dropFirst()
            }
        }
        return result
    }

    /// The bytes a text form stands for (the inverse of `escaped`).
    public static func unescaped(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        let scalars = Array(text.unicodeScalars)
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            guard scalar == "\\", index + 1 < scalars.count else {
                bytes += Array(String(scalar).utf8)
                index += 1
                continue
            }
            let next = scalars[index + 1]
            if next == "\\" {
                bytes.append(UInt8(ascii: "\\"))
                index += 2
            } else if next == "x", index + 3 < scalars.count,
                      let byte = UInt8(String(String.UnicodeScalarView(scalars[index + 2...index + 3])), radix: 16) {
                bytes.append(byte)
                index += 4
            } else if next == "u", index + 2 < scalars.count, scalars[index + 2] == "{",
                      let close = scalars[(index + 3)...].prefix(7).firstIndex(of: "}"),
                      let value = UInt32(String(String.UnicodeScalarView(scalars[index + 3..<close])), radix: 16),
                      let decoded = Unicode.Scalar(value) {
                bytes += Array(String(decoded).utf8)
                index = close + 1
            } else {
                bytes.append(UInt8(ascii: "\\"))
                index += 1
            }
        }
        return bytes
    }

    /// How many leading bytes form complete, valid UTF-8.
    static func validUTF8Prefix<C: Collection<UInt8>>(_ bytes: C) -> Int {
        var length = 0
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): length += UTF8.width(scalar)
            case .emptyInput, .error: return length
            }
        }
    }

    static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 0xF)]], as: UTF8.self)
    }
}
