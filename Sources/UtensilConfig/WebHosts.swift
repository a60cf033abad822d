/// The Host header names the gallery answers to besides its own (`web_hosts`): a reverse
/// proxy's public name, say. Each is a DNS name, an IPv4 address or a bracketed IPv6
/// address, without a port; kept in lower case.
public enum WebHosts {
    /// At most this many names.
    static let maximumCount = 64

    /// A TOML array of strings, or from the environment or a flag a comma-separated list
    /// (`""` is none).
    static func parse(list names: [String]) throws(SettingProblem) -> [String] {
        guard names.count <= maximumCount else {
            throw SettingProblem("names \(names.count) hosts, but at most \(maximumCount) are allowed")
        }
        var hosts: [String] = []
        for name in names {
            let host = try parse(name)
            if !hosts.contains(host) { hosts.append(host) }
        }
        return hosts
    }

    /// `"a.example, b.example"` → two names; `""` → none.
    static func split(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// One name, checked and lower-cased.
    static func parse(_ name: String) throws(SettingProblem) -> String {
        let usage = "give a host name such as \"photos.example.org\", an IPv4 address, or an IPv6 address in brackets, without a port"
        let host = name.lowercased()
        if host.hasPrefix("[") && host.hasSuffix("]") {
            let inner = host.dropFirst().dropLast()
            guard inner.contains(":"), inner.unicodeScalars.allSatisfy({ $0.properties.isASCIIHexDigit || $0 == ":" || $0 == "." })
            else { throw SettingProblem("holds \(TOMLText.quoted(name)), which is not an IPv6 address in brackets; \(usage)") }
            return host
        }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        let validLabel: (Substring) -> Bool = { label in
            (1...63).contains(label.count) && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
        }
        guard (1...253).contains(host.count), labels.allSatisfy(validLabel) else {
            throw SettingProblem("holds \(TOMLText.quoted(name)), which is not a host name; \(usage)")
        }
        return host
    }

    /// The names as a TOML array: `["photos.example.org"]`.
    static func rendered(_ hosts: [String]) -> String {
        "[" + hosts.map(TOMLText.quoted).joined(separator: ", ") + "]"
    }
}
