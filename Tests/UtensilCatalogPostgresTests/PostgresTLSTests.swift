import Foundation
import PostgresNIO
import Testing
import UtensilCatalogPostgres
import UtensilConfig
import UtensilTestSupport

/// `sslmode` and `sslrootcert` against a real server with TLS on (a certificate signed by an
/// authority the test makes), off, and allowing the role over TLS only (`hostssl`).
@Suite(.tags(.spawnsProcesses)) struct PostgresTLSTests {
    /// A server with TLS on, its certificate made out to localhost and 127.0.0.1 by `authority`.
    private func tlsServer(_ authority: TestCertificateAuthority) throws -> PostgresServer {
        let server = try PostgresServer()
        let (certificate, key) = try authority.issue("server", names: ["localhost", "127.0.0.1"])
        try server.enableTLS(certificate: certificate, key: key)
        return server
    }

    /// Whether a connection made with `settings` is encrypted (as the server sees it).
    private func encrypted(_ settings: PostgresCatalogSettings) async throws -> Bool {
        let connection = try await PostgresCatalogCheck.connect(settings, logger: quietLogger)
        var ssl = false
        do {
            let rows = try await connection.query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()", logger: quietLogger)
            for try await (value) in rows.decode(Bool.self) { ssl = value }
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
        return ssl
    }

    private func settings(
        _ server: PostgresServer, _ mode: PostgresURL.SSLMode, rootCertificate: String? = nil, host: String = "127.0.0.1"
    ) -> PostgresCatalogSettings {
        var settings = server.settings()
        settings.url.server = .tcp(host: host)
        settings.url.sslMode = mode
        settings.url.sslRootCert = rootCertificate
        return settings
    }

    private func problem(_ settings: PostgresCatalogSettings) async -> PostgresCatalogProblem? {
        do {
            _ = try await PostgresCatalogCheck.run(settings: settings, logger: quietLogger)
            return nil
        } catch {
            return error
        }
    }

    @Test func eachModeConnectsAsLibpqWouldAndEncrypts() async throws {
        let folder = try TemporaryTLSFolder()
        let authority = try TestCertificateAuthority(in: folder.url, name: "right")
        let server = try tlsServer(authority)
        defer { server.remove() }
        #expect(try await encrypted(settings(server, .require)), "\(server.log)")
        #expect(try await encrypted(settings(server, .prefer)))
        #expect(try await encrypted(settings(server, .verifyCA, rootCertificate: authority.certificate)))
        #expect(try await encrypted(settings(server, .verifyFull, rootCertificate: authority.certificate)))
        #expect(try await encrypted(settings(server, .verifyFull, rootCertificate: authority.certificate, host: "localhost")))
        #expect(try await !encrypted(settings(server, .disable)))
        // Over the socket there is no TLS, whatever the mode (as with libpq).
        var socket = server.settings(overSocket: true)
        socket.url.sslMode = .require
        #expect(try await !encrypted(socket))
        // The daemon's pool of connections encrypts too.
        let client = PostgresClient(
            configuration: settings(server, .verifyFull, rootCertificate: authority.certificate).clientConfiguration,
            backgroundLogger: quietLogger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            let rows = try await client.query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()", logger: quietLogger)
            for try await (ssl) in rows.decode(Bool.self) { #expect(ssl) }
        }
    }

    @Test func aCertificateThatDoesNotVerifyIsRefusedSayingSo() async throws {
        let folder = try TemporaryTLSFolder()
        let authority = try TestCertificateAuthority(in: folder.url, name: "right")
        let stranger = try TestCertificateAuthority(in: folder.url, name: "wrong")
        let server = try tlsServer(authority)
        defer { server.remove() }
        let tcp = "127.0.0.1:\(server.port)"
        for mode in [PostgresURL.SSLMode.verifyFull, .verifyCA, .require] {
            let refused = await problem(settings(server, mode, rootCertificate: stranger.certificate))
            #expect(refused == .certificateRejected(
                server: tcp, rootCertificate: stranger.certificate, reason: "it is not signed by that authority, or has expired"),
                "\(mode)")
            #expect(refused?.description.contains("the certificate of PostgreSQL at \(tcp) did not verify against sslrootcert=") == true)
        }
        // Made out to another name: verify-ca connects, verify-full does not.
        let (certificate, key) = try authority.issue("elsewhere", names: ["db.example.org"])
        try server.enableTLS(certificate: certificate, key: key)
        #expect(try await encrypted(settings(server, .verifyCA, rootCertificate: authority.certificate)))
        #expect(await problem(settings(server, .verifyFull, rootCertificate: authority.certificate)) == .certificateRejected(
            server: tcp, rootCertificate: authority.certificate, reason: "it is not made out to 127.0.0.1"))
        // A file that holds no certificate.
        let garbage = folder.url.appendingPathComponent("garbage.crt").path
        try Data("not a certificate\n".utf8).write(to: URL(fileURLWithPath: garbage))
        guard case .rootCertificateUnusable(garbage, _)? = await problem(settings(server, .verifyFull, rootCertificate: garbage)) else {
            Issue.record("a garbage sslrootcert was not refused as unusable")
            return
        }
    }

    @Test func aServerWithoutTLSIsRefusedWhenTLSIsRequired() async throws {
        let server = try PostgresServer()
        defer { server.remove() }
        let refused = await problem(settings(server, .require))
        #expect(refused == .tlsNotOffered(server: "127.0.0.1:\(server.port)", sslMode: "require"))
        #expect(refused?.description.contains("does not offer TLS, and catalog says sslmode=require") == true)
        #expect(refused?.needsAPerson == true)
        // prefer (the default) falls back to a plain connection.
        #expect(try await !encrypted(settings(server, .prefer)))
    }

    @Test func aServerThatLetsTheRoleInOverTLSOnlyRefusesDisableSayingTLSIsRequired() async throws {
        let folder = try TemporaryTLSFolder()
        let authority = try TestCertificateAuthority(in: folder.url, name: "right")
        let server = try tlsServer(authority)
        defer { server.remove() }
        try server.writeHostRules("hostssl all all 127.0.0.1/32 scram-sha-256")
        let refused = await problem(settings(server, .disable))
        #expect(refused == .tlsRequired(user: server.role, database: server.database, server: "127.0.0.1:\(server.port)"))
        #expect(refused?.description.contains("over TLS only (hostssl in pg_hba.conf), and catalog says sslmode=disable") == true)
        #expect(try await encrypted(settings(server, .require)))
        // No line at all for this role: that is what is said, even without TLS.
        try server.writeHostRules("hostssl all someone_else 127.0.0.1/32 scram-sha-256")
        guard case .noHostRule? = await problem(settings(server, .disable)) else {
            Issue.record("a server without a line for the role was not said to lack one")
            return
        }
    }

    @Test func theDaemonRefusesACertificateThatDoesNotVerifyWithExit78() throws {
        let folder = try TemporaryTLSFolder()
        let authority = try TestCertificateAuthority(in: folder.url, name: "right")
        let stranger = try TestCertificateAuthority(in: folder.url, name: "wrong")
        let server = try tlsServer(authority)
        defer { server.remove() }
        let world = try TestWorld()
        defer { world.remove() }
        for (rootCertificate, status) in [(stranger.certificate, Int32(78)), (authority.certificate, 0)] {
            let url = server.tcpURL + "?sslmode=verify-full&sslrootcert=\(rootCertificate)"
            let result = try UtensildProcess.run(UtensildProcess.arguments(
                for: world, extra: ["--check-config", "--catalog", url, "--catalog-password-file", server.passwordFile]))
            #expect(result.status == status, "\(result.errors)")
            if status == 78 {
                #expect(result.errors.contains("did not verify against sslrootcert=\(stranger.certificate)"), "\(result.errors)")
            }
        }
        let url = server.tcpURL + "?sslmode=verify-full&sslrootcert=\(stranger.certificate)"
        let daemon = try daemonRefusal(
            world, extra: ["--catalog", url, "--catalog-password-file", server.passwordFile, "--host-name", "kitchen-1"])
        #expect(daemon.status == 78, "\(daemon.log)")
        #expect(daemon.log.contains("did not verify against sslrootcert="), "\(daemon.log)")
    }
}

/// A temporary folder for certificates, removed when the value goes.
final class TemporaryTLSFolder {
    let url: URL

    init() throws {
        url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("utensild-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
    }

    deinit { removeTree(url.path) }
}
