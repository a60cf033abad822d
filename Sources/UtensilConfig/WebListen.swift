/// Where the web gallery listens (`web_listen`).
public enum WebListen: Sendable, Equatable, CustomStringConvertible {
    /// No web gallery (`""`).
    case off
    /// A TCP address: `127.0.0.1:8180`, `[::1]:8180`, `0.0.0.0:80`.
    case tcp(host: String, port: Int)
    /// A Unix socket for a reverse proxy: `unix:/run/utensild/web.sock`.
    case unix(path: String)

    /// The value as written in the configuration.
    public var description: String {
        switch self {
        case .off: ""
        case .tcp(let host, let port): host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        case .unix(let path): "unix:\(path)"
        }
    }

    /// `"HOST:PORT"`, `"[IPV6]:PORT"`, `"unix:PATH"` or `""`.
    static func parse(_ text: String) throws(SettingProblem) -> WebListen {
        if text.isEmpty { return .off }
        if text.hasPrefix("unix:") {
            let path = try PathRules.normalizedAbsolute(String(text.dropFirst(5)))
            if path.utf8.count > Limits.socketPathBytes {
                throw SettingProblem("names a socket path of \(path.utf8.count) bytes, but a Unix socket path can have at most \(Limits.socketPathBytes); choose a shorter path")
            }
            return .unix(path: path)
        }
        let usage = "give \"HOST:PORT\" such as \"127.0.0.1:8180\", \"unix:PATH\", or \"\" to turn the gallery off"
        guard let colon = text.lastIndex(of: ":") else { throw SettingProblem("has no port; \(usage)") }
        var host = String(text[..<colon])
        let portText = text[text.index(after: colon)...]
        guard let port = Int(portText), (1...65535).contains(port), portText.allSatisfy(\.isASCII) else {
            throw SettingProblem("has no port from 1 to 65535 after its last colon; \(usage)")
        }
        if host.hasPrefix("[") && host.hasSuffix("]") {
            host = String(host.dropFirst().dropLast())
            guard host.contains(":") else { throw SettingProblem("has brackets around a host that is not an IPv6 address; \(usage)") }
        } else if host.contains(":") {
            throw SettingProblem("has an IPv6 address without brackets; write it as \"[::1]:8180\"")
        }
        let allowed = host.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || ".-:".unicodeScalars.contains($0)) }
        guard !host.isEmpty, allowed else { throw SettingProblem("has no valid host before the port; \(usage)") }
        return .tcp(host: host, port: port)
    }
}
