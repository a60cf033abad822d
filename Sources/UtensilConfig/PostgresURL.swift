import Glibc

/// A PostgreSQL server, role and database, as `catalog` names them:
/// `postgresql://USER@HOST:PORT/DB` (TCP; the port defaults to 5432) or
/// `postgresql://USER@/DB?host=/run/postgresql` (the server's Unix socket in that folder;
/// `&port=N` picks the socket `.s.PGSQL.N`), with libpq's `sslmode` and `sslrootcert`
/// (see ``SSLMode``).
///
/// It never holds a password: URLs end up in logs, in `--check-config` output and in shell
/// histories, so a URL with one is refused and the password comes from `catalog_password_file`
/// or a systemd credential instead.
public struct PostgresURL: Sendable, Equatable, CustomStringConvertible {
    /// How the server is reached.
    public enum Server: Sendable, Equatable {
        /// A host name or IP address (IPv6 without brackets), over TCP.
        case tcp(host: String)
        /// The folder holding the server's socket (`/run/postgresql`).
        case unixSocket(directory: String)
    }

    /// libpq's `sslmode`, as libpq reads it: whether the TCP connection is encrypted and what of
    /// the server's certificate is verified. Over the Unix socket there is no TLS, whatever the
    /// mode (libpq does the same).
    public enum SSLMode: String, Sendable, Equatable, CaseIterable {
        /// No TLS.
        case disable
        /// TLS when the server offers it, plain otherwise (libpq's default; utensild's too).
        case prefer
        /// TLS or no connection; the certificate is not verified (unless `sslrootcert` is given:
        /// then as ``verifyCA``, as libpq does).
        case require
        /// TLS, the certificate signed by `sslrootcert`'s authority; its name is not checked.
        case verifyCA = "verify-ca"
        /// TLS, the certificate signed by `sslrootcert`'s authority and made out to the host
        /// named in the URL (or its IP address).
        case verifyFull = "verify-full"
    }

    /// `sslrootcert=system`: the system's trusted authorities instead of a file.
    public static let systemRootCertificates = "system"
    public static let defaultPort = 5432

    /// The role to log in as.
    public var user: String
    public var server: Server
    /// The TCP port, or the number in the socket's name (`.s.PGSQL.5432`).
    public var port: Int
    public var database: String
    /// `sslmode`; ``SSLMode/prefer`` when the URL gives none.
    public var sslMode: SSLMode
    /// `sslrootcert`: the PEM file of the authorities the server's certificate must be signed
    /// by, ``systemRootCertificates`` for the system's, or nil when not given.
    public var sslRootCert: String?

    public init(
        user: String, server: Server, port: Int = PostgresURL.defaultPort, database: String,
        sslMode: SSLMode = .prefer, sslRootCert: String? = nil
    ) {
        self.user = user
        self.server = server
        self.port = port
        self.database = database
        self.sslMode = sslMode
        self.sslRootCert = sslRootCert
    }

    /// Whether the connection is encrypted (or fails): sslmode require, verify-ca or verify-full over TCP.
    public var requiresTLS: Bool {
        guard case .tcp = server else { return false }
        return sslMode != .disable && sslMode != .prefer
    }

    /// The socket file for a ``Server/unixSocket(directory:)`` server.
    public var socketPath: String? {
        guard case .unixSocket(let directory) = server else { return nil }
        return (directory == "/" ? "" : directory) + "/.s.PGSQL.\(port)"
    }

    /// Where the server is, for messages: `db.example.org:5432` or `the socket /run/postgresql/.s.PGSQL.5432`.
    public var serverDescription: String {
        switch server {
        case .tcp(let host): (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
        case .unixSocket: "the socket \(socketPath ?? "")"
        }
    }

    /// The canonical URL, which parses back to an equal value.
    public var description: String {
        let head = "postgresql://" + URLText.encoded(user) + "@"
        var parameters: [String] = []
        let path: String
        switch server {
        case .tcp(let host):
            path = head + (host.contains(":") ? "[\(host)]" : host) + ":\(port)/" + URLText.encoded(database)
        case .unixSocket(let directory):
            path = head + "/" + URLText.encoded(database)
            parameters.append("host=" + URLText.encoded(directory, keeping: "/"))
            if port != Self.defaultPort { parameters.append("port=\(port)") }
        }
        if sslMode != .prefer { parameters.append("sslmode=" + sslMode.rawValue) }
        if let sslRootCert { parameters.append("sslrootcert=" + URLText.encoded(sslRootCert, keeping: "/")) }
        return parameters.isEmpty ? path : path + "?" + parameters.joined(separator: "&")
    }

    static func hasScheme(_ text: String) -> Bool { scheme(of: text) != nil }

    /// The length of `postgresql://` or `postgres://` (any letter case) at the start of `text`.
    private static func scheme(of text: String) -> Int? {
        for scheme in ["postgresql://", "postgres://"] where text.lowercased().hasPrefix(scheme) { return scheme.count }
        return nil
    }

    // MARK: Parsing

    private static let usage = "write postgresql://USER@HOST:PORT/DB or postgresql://USER@/DB?host=/run/postgresql"
    private static let passwordRefusal =
        "holds a password, and URLs end up in logs; remove it and put the password in a file named by catalog_password_file (or the systemd credential catalog-password)"

    static func parse(_ text: String) throws(SettingProblem) -> PostgresURL {
        guard let schemeLength = scheme(of: text) else { throw SettingProblem("is not a PostgreSQL URL; \(usage)") }
        let rest = text.dropFirst(schemeLength)
        guard !rest.contains("#") else { throw SettingProblem("has a fragment (#…), which means nothing here; \(usage)") }
        let (beforeQuery, query) = split(rest, at: "?")
        let (authority, pathPart) = split(beforeQuery, at: "/")

        // USER@ (a colon would start a password).
        guard let at = authority.lastIndex(of: "@") else { throw SettingProblem("names no user; \(usage)") }
        let userInfo = authority[..<at]
        if userInfo.contains(":") { throw SettingProblem(passwordRefusal) }
        let user = try decoded(userInfo, what: "user")
        guard !user.isEmpty else { throw SettingProblem("names no user; \(usage)") }

        // HOST[:PORT], [IPV6][:PORT], :PORT or nothing.
        var (host, port) = try hostAndPort(authority[authority.index(after: at)...])

        // /DB
        guard let pathPart, !pathPart.isEmpty else { throw SettingProblem("names no database after the host; \(usage)") }
        guard !pathPart.contains("/") else { throw SettingProblem("has a \"/\" in the database name; \(usage)") }
        let database = try decoded(pathPart, what: "database name")

        // ?host=/FOLDER&port=N&sslmode=MODE&sslrootcert=/FILE
        var socketDirectory: String?
        var sslMode: SSLMode?
        var sslRootCert: String?
        for pair in query.map({ $0.split(separator: "&", omittingEmptySubsequences: true) }) ?? [] {
            let (name, value) = split(pair, at: "=")
            if name.lowercased() == "password" { throw SettingProblem(passwordRefusal) }
            let decodedValue = try decoded(value ?? "", what: "value of \(name)")
            switch name {
            case "host":
                guard decodedValue.hasPrefix("/") else {
                    throw SettingProblem("has host=\(decodedValue) in its query, which is not a socket folder; give an absolute folder (host=/run/postgresql), or the host name before the path")
                }
                socketDirectory = try PathRules.normalizedAbsolute(decodedValue)
            case "port":
                guard port == nil else { throw SettingProblem("gives the port twice; give it once") }
                port = try portNumber(decodedValue[...])
            case "sslmode":
                guard sslMode == nil else { throw SettingProblem("gives sslmode twice; give it once") }
                sslMode = try mode(decodedValue)
            case "sslrootcert":
                guard sslRootCert == nil else { throw SettingProblem("gives sslrootcert twice; give it once") }
                guard decodedValue == systemRootCertificates || decodedValue.hasPrefix("/") else {
                    throw SettingProblem("has sslrootcert=\(TOMLText.displayName(decodedValue)), which is not an absolute path; name the PEM file of the certificate authority that signed the server's certificate (sslrootcert=/etc/utensild/postgresql-ca.crt), or sslrootcert=system for the system's")
                }
                sslRootCert = decodedValue == systemRootCertificates ? decodedValue : try PathRules.normalizedAbsolute(decodedValue)
            default:
                throw SettingProblem("has the parameter \(TOMLText.displayName(String(name))), which utensild does not understand; only host (a socket folder), port, sslmode and sslrootcert are accepted")
            }
        }
        if sslMode == .verifyCA || sslMode == .verifyFull, sslRootCert == nil {
            throw SettingProblem("has sslmode=\(sslMode?.rawValue ?? "") without sslrootcert, so nothing to verify the server's certificate against; add sslrootcert=/PATH/TO/ca.crt (the authority that signed it), or sslrootcert=system for the system's authorities")
        }

        let server: Server
        switch (host, socketDirectory) {
        case (let host?, nil): server = .tcp(host: host)
        case (nil, let directory?): server = .unixSocket(directory: directory)
        case (.some, .some): throw SettingProblem("names both a host and a socket folder (host=); give one of them")
        case (nil, nil): throw SettingProblem("names no server; \(usage)")
        }
        let url = PostgresURL(
            user: user, server: server, port: port ?? defaultPort, database: database, sslMode: sslMode ?? .prefer,
            sslRootCert: sslRootCert)
        if let socket = url.socketPath, socket.utf8.count > Limits.socketPathBytes {
            throw SettingProblem("names the socket \(socket) of \(socket.utf8.count) bytes, but a Unix socket path can have at most \(Limits.socketPathBytes); choose a shorter folder")
        }
        return url
    }

    private static func hostAndPort(_ text: Substring) throws(SettingProblem) -> (String?, Int?) {
        var host: Substring
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw SettingProblem("has a \"[\" without \"]\" around an IPv6 address; \(usage)") }
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw SettingProblem("has something other than :PORT after \"]\"; \(usage)") }
                portText = after.dropFirst()
            }
            guard host.contains(":") else { throw SettingProblem("has brackets around a host that is not an IPv6 address; \(usage)") }
        } else {
            let (name, port) = split(text, at: ":")
            host = name
            portText = port
            if let port, port.contains(":") {
                throw SettingProblem("has an IPv6 address without brackets; write it as postgresql://USER@[::1]:5432/DB")
            }
        }
        let allowed = host.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || ".-:_".unicodeScalars.contains($0))
        }
        guard allowed else { throw SettingProblem("has a host name with characters other than letters, digits, \".\", \"-\" and \"_\"; \(usage)") }
        return (host.isEmpty ? nil : String(host), try portText.map(portNumber))
    }

    private static func mode(_ text: String) throws(SettingProblem) -> SSLMode {
        if let mode = SSLMode(rawValue: text) { return mode }
        let modes = SSLMode.allCases.map(\.rawValue).joined(separator: ", ")
        if text == "allow" {
            throw SettingProblem("has sslmode=allow, which utensild does not offer (it cannot try without TLS first); give one of \(modes)")
        }
        throw SettingProblem("has sslmode=\(TOMLText.displayName(text)), which is not one of \(modes)")
    }

    /// Checks that `sslrootcert` names a regular file this process can read (the PEM is read on connecting).
    static func checkRootCertificate(_ path: String) throws(SettingProblem) {
        guard path != systemRootCertificates else { return }
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw SettingProblem("has sslrootcert=\(path), which \(errno == ENOENT ? "does not exist" : "cannot be looked at (\(String(cString: strerror(errno))))"); put the PEM file of the certificate authority that signed the server's certificate there, or correct the path")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw SettingProblem("has sslrootcert=\(path), which is not a regular file; name the PEM file of the certificate authority")
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw SettingProblem("has sslrootcert=\(path), which cannot be read (\(String(cString: strerror(errno)))); make it readable by the daemon's user (mode 0644)")
        }
        close(fd)
    }

    private static func portNumber(_ text: Substring) throws(SettingProblem) -> Int {
        guard text.allSatisfy({ ("0"..."9").contains($0) }), let port = Int(text), (1...65535).contains(port) else {
            throw SettingProblem("has the port \(TOMLText.displayName(String(text))), but a port is a number from 1 to 65535")
        }
        return port
    }

    private static func decoded(_ text: Substring, what: String) throws(SettingProblem) -> String {
        guard let value = URLText.decoded(text) else {
            throw SettingProblem("has a \(what) with a bad %-escape or one that is not UTF-8; write %XX with two hex digits")
        }
        guard !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw SettingProblem("has a control character in its \(what)")
        }
        return value
    }

    /// The text before the first `separator`, and the text after it (nil without one).
    private static func split(_ text: Substring, at separator: Character) -> (Substring, Substring?) {
        guard let index = text.firstIndex(of: separator) else { return (text, nil) }
        return (text[..<index], text[text.index(after: index)...])
    }

    /// `text` as it may be shown: a password (`USER:PASSWORD@`, `password=…`) replaced by `…`.
    /// For error messages about a value that was refused for holding one.
    static func redacted(_ text: String) -> String {
        guard let schemeLength = scheme(of: text) else { return text }
        var out = String(text.prefix(schemeLength))
        let rest = text.dropFirst(schemeLength)
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
            out += authority[...colon] + "…" + authority[at...]
        } else {
            out += authority
        }
        let tail = rest[authorityEnd...]
        guard let question = tail.firstIndex(of: "?") else { return out + tail }
        out += tail[...question]
        out += tail[tail.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false).map { pair in
            pair.lowercased().hasPrefix("password=") ? pair.prefix(9) + "…" : pair
        }.joined(separator: "&")
        return out
    }
}

/// Percent-encoding for the parts of a PostgreSQL URL.
enum URLText {
    /// `text` with every byte but `A-Z a-z 0-9 - . _ ~` (and those in `keeping`) as `%XX`.
    static func encoded(_ text: String, keeping: String = "") -> String {
        var out = ""
        for byte in text.utf8 {
            let scalar = Unicode.Scalar(byte)
            let plain = ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                || "-._~".unicodeScalars.contains(scalar) || keeping.unicodeScalars.contains(scalar)
            if plain {
                out.unicodeScalars.append(scalar)
            } else {
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" : "") + hex
            }
        }
        return out
    }

    /// `text` with its `%XX` escapes decoded; nil for a bad escape or bytes that are not UTF-8.
    static func decoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
