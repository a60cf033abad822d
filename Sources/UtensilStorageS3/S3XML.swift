/// The few elements of S3's XML answers the client reads (`Key`, `IsTruncated`, `Code` …):
/// a plain scan of `<Name>text</Name>`, for answers whose elements never nest in themselves.
enum S3XML {
    /// The text of every `<name>…</name>` in `xml`, in order, entities decoded.
    static func values(_ name: String, in xml: String) -> [String] {
        blocks(name, in: xml).map(unescaped)
    }

    /// The raw content of every `<name>…</name>` in `xml` (elements inside it, entities as
    /// they are), for reading the elements of each.
    static func blocks(_ name: String, in xml: String) -> [String] {
        let open = "<\(name)>", close = "</\(name)>"
        var found: [String] = []
        var rest = xml[...]
        while let start = rest.range(of: open) {
            rest = rest[start.upperBound...]
            guard let end = rest.range(of: close) else { break }
            found.append(String(rest[..<end.lowerBound]))
            rest = rest[end.upperBound...]
        }
        return found
    }

    /// The text of the first `<name>…</name>`.
    static func value(_ name: String, in xml: String) -> String? {
        values(name, in: xml).first
    }

    /// `text` with XML's character entities in it.
    static func escaped(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(character)
            }
        }
        return out
    }

    /// `text` with its entities (`&amp;`, `&#34;`, `&#x22;` …) decoded.
    static func unescaped(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var out = ""
        var rest = text[...]
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            guard let semicolon = rest[amp...].firstIndex(of: ";") else { break }
            let entity = rest[rest.index(after: amp)..<semicolon]
            switch entity {
            case "amp": out += "&"
            case "lt": out += "<"
            case "gt": out += ">"
            case "quot": out += "\""
            case "apos": out += "'"
            default:
                let number = entity.hasPrefix("#x") ? UInt32(entity.dropFirst(2), radix: 16)
                    : entity.hasPrefix("#") ? UInt32(entity.dropFirst(), radix: 10) : nil
                if let number, let scalar = Unicode.Scalar(number) {
                    out.unicodeScalars.append(scalar)
                } else {
                    out += rest[amp...semicolon]
                }
            }
            rest = rest[rest.index(after: semicolon)...]
        }
        return out + rest
    }
}
