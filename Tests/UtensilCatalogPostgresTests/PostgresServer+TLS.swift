import Foundation
import Glibc
import UtensilTestSupport

/// A certificate authority of a test's own, made with the `openssl` command: its certificate
/// (``certificate``, the file `sslrootcert` names) and the server certificates it signs.
struct TestCertificateAuthority {
    let folder: URL
    let name: String

    /// The authority's certificate (PEM).
    var certificate: String { folder.appendingPathComponent("\(name).crt").path }
    private var key: String { folder.appendingPathComponent("\(name).key").path }

    /// A new authority in `folder` (which must exist), its files named after `name`.
    init(in folder: URL, name: String) throws {
        self.folder = folder
        self.name = name
        try Self.openssl([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
            "-subj", "/CN=utensild test authority \(name)", "-keyout", key, "-out", certificate,
        ])
    }

    /// A server certificate and key signed by this authority, made out to `names` (DNS names
    /// and IP addresses); the paths of the certificate and of the key.
    func issue(_ file: String, names: [String]) throws -> (certificate: String, key: String) {
        let base = folder.appendingPathComponent(file).path
        let alternatives = names.map { $0.first?.isNumber == true ? "IP:\($0)" : "DNS:\($0)" }.joined(separator: ",")
        try Data("""
            subjectAltName = \(alternatives)
            basicConstraints = CA:FALSE
            keyUsage = digitalSignature, keyEncipherment
            extendedKeyUsage = serverAuth

            """.utf8).write(to: URL(fileURLWithPath: base + ".ext"))
        try Self.openssl([
            "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj", "/CN=\(names[0])",
            "-keyout", base + ".key", "-out", base + ".csr",
        ])
        try Self.openssl([
            "x509", "-req", "-in", base + ".csr", "-CA", certificate, "-CAkey", key, "-CAcreateserial", "-days", "2",
            "-extfile", base + ".ext", "-out", base + ".crt",
        ])
        return (base + ".crt", base + ".key")
    }

    private static func openssl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") else {
            throw TestFailure("/usr/bin/openssl is missing: apt-get install openssl")
        }
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TestFailure("openssl \(arguments.joined(separator: " ")) failed (\(process.terminationStatus)): \(text)")
        }
    }
}

extension PostgresServer {
    /// Turns TLS on with this certificate and key (copied into the data directory, the key
    /// mode 0600 and owned by the server's user, as PostgreSQL demands) and restarts the server.
    func enableTLS(certificate: String, key: String) throws {
        for (source, target, mode) in [(certificate, "server.crt", 0o644), (key, "server.key", 0o600)] {
            let path = dataDirectory + "/" + target
            try? FileManager.default.removeItem(atPath: path)
            try FileManager.default.copyItem(atPath: source, toPath: path)
            guard chmod(path, mode_t(mode)) == 0 else { throw TestFailure("chmod \(path): \(String(cString: strerror(errno)))") }
            if getuid() == 0, let user = getpwnam("postgres") {
                guard chown(path, user.pointee.pw_uid, user.pointee.pw_gid) == 0 else {
                    throw TestFailure("chown postgres \(path): \(String(cString: strerror(errno)))")
                }
            }
        }
        try setSetting("ssl = on\nssl_cert_file = 'server.crt'\nssl_key_file = 'server.key'\n")
    }

    /// Turns TLS off again and restarts the server.
    func disableTLS() throws {
        try setSetting("ssl = off\n")
    }

    /// Replaces pg_hba.conf with `rules` (after the superuser's own line over the private
    /// socket, which the test's administration needs) and restarts the server.
    func writeHostRules(_ rules: String) throws {
        try Data(("local all postgres trust\n" + rules + "\n").utf8)
            .write(to: URL(fileURLWithPath: dataDirectory + "/pg_hba.conf"))
        try restart()
    }

    /// Appends `lines` to postgresql.conf (a later line wins) and restarts the server.
    private func setSetting(_ lines: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: dataDirectory + "/postgresql.conf"))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(lines.utf8))
        try handle.close()
        try restart()
    }

    /// Stops and starts the server: its settings and pg_hba.conf read afresh once it accepts connections.
    func restart() throws {
        try stop()
        try start()
    }
}
