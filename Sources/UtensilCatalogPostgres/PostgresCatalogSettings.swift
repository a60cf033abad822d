import NIOSSL
import PostgresNIO
import UtensilConfig

/// What it takes to reach the PostgreSQL catalog: the server, role, database and TLS of
/// `catalog` and the password read from `catalog_password_file` or the systemd credential.
///
/// The password is kept out of every description: ``description`` names the server, role
/// and database only.
public struct PostgresCatalogSettings: Sendable, CustomStringConvertible {
    public var url: PostgresURL
    /// nil when the server asks for none (peer or trust authentication over the socket).
    public var password: String?
    /// How long opening one connection may take before the server counts as unreachable.
    public var connectTimeoutSeconds: Int64

    public init(url: PostgresURL, password: String?, connectTimeoutSeconds: Int64 = 10) {
        self.url = url
        self.password = password
        self.connectTimeoutSeconds = connectTimeoutSeconds
    }

    /// `catalog` and the password of a loaded configuration; nil when the catalog is SQLite.
    /// - Throws: when the password file or credential cannot be read.
    public init?(configuration: UtensilConfiguration, environment: [String: String]) throws(CatalogPasswordError) {
        guard case .postgres(let url) = configuration.catalog else { return nil }
        self.init(url: url, password: try configuration.catalogPasswordSource(environment: environment).read())
    }

    /// `role utensil, database utensils at db.example.org:5432` — never the password.
    public var description: String {
        "role \(url.user), database \(url.database) at \(url.serverDescription)"
    }

    /// For one connection (``PostgresCatalogCheck``, ``PostgresMigrator``), with TLS as
    /// `sslmode` asks (see ``tlsConfiguration``).
    /// - Throws: ``PostgresCatalogProblem/rootCertificateUnusable(path:reason:)`` when the
    ///   `sslrootcert` file holds no usable certificate.
    public func connectionConfiguration() throws(PostgresCatalogProblem) -> PostgresConnection.Configuration {
        var tls = PostgresConnection.Configuration.TLS.disable
        if let tlsConfiguration {
            let context: NIOSSLContext
            do {
                context = try NIOSSLContext(configuration: tlsConfiguration)
            } catch {
                throw .rootCertificateUnusable(path: url.sslRootCert ?? "", reason: "\(error)")
            }
            tls = url.requiresTLS ? .require(context) : .prefer(context)
        }
        return configuration(PostgresConnection.Configuration.self, tls: tls)
    }

    /// For the daemon's pool of connections, the same as
    /// ``connectionConfiguration()``.
    public var clientConfiguration: PostgresClient.Configuration {
        let tls: PostgresClient.Configuration.TLS = switch tlsConfiguration {
        case nil: .disable
        case let configuration? where url.requiresTLS: .require(configuration)
        case let configuration?: .prefer(configuration)
        }
        return configuration(PostgresClient.Configuration.self, tls: tls)
    }

    /// NIOSSL's configuration for `sslmode` and `sslrootcert`, as libpq reads them; nil for no
    /// TLS (`disable`, or the Unix socket). `prefer` and `require` verify nothing unless
    /// `sslrootcert` is given (then as `verify-ca`); `verify-ca` checks that the certificate
    /// was signed by `sslrootcert`'s authority, `verify-full` also that it is made out to the
    /// host of the URL (a name, or the IP address connected to).
    public var tlsConfiguration: TLSConfiguration? {
        guard case .tcp = url.server, url.sslMode != .disable else { return nil }
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        switch url.sslMode {
        case .disable, .prefer, .require: tls.certificateVerification = url.sslRootCert == nil ? .none : .noHostnameVerification
        case .verifyCA: tls.certificateVerification = .noHostnameVerification
        case .verifyFull: tls.certificateVerification = .fullVerification
        }
        switch url.sslRootCert {
        case nil, PostgresURL.systemRootCertificates?: tls.trustRoots = .default
        case let path?: tls.trustRoots = .file(path)
        }
        return tls
    }

    /// The server, role, password and database of ``url``, `tls`, this connect timeout and
    /// `application_name`, in either of postgres-nio's configurations.
    private func configuration<Configuration: PostgresEndpointConfiguration>(
        _: Configuration.Type, tls: Configuration.TLS
    ) -> Configuration {
        var configuration: Configuration = switch url.server {
        case .tcp(let host):
            .init(host: host, port: url.port, username: url.user, password: password, database: url.database, tls: tls)
        case .unixSocket:
            .init(unixSocketPath: url.socketPath ?? "", username: url.user, password: password, database: url.database)
        }
        configuration.setCatalogOptions(connectTimeoutSeconds: connectTimeoutSeconds, startupParameters: [("application_name", "utensild")])
        return configuration
    }
}

/// What postgres-nio's two configurations (one connection's, a pool's) have in common, as
/// ``PostgresCatalogSettings`` fills them in.
protocol PostgresEndpointConfiguration {
    associatedtype TLS
    init(host: String, port: Int, username: String, password: String?, database: String?, tls: TLS)
    init(unixSocketPath: String, username: String, password: String?, database: String?)
    mutating func setCatalogOptions(connectTimeoutSeconds: Int64, startupParameters: [(String, String)])
}

extension PostgresConnection.Configuration: PostgresEndpointConfiguration {
    mutating func setCatalogOptions(connectTimeoutSeconds: Int64, startupParameters: [(String, String)]) {
        options.connectTimeout = .seconds(connectTimeoutSeconds)
        options.additionalStartupParameters = startupParameters
    }
}

extension PostgresClient.Configuration: PostgresEndpointConfiguration {
    mutating func setCatalogOptions(connectTimeoutSeconds: Int64, startupParameters: [(String, String)]) {
        options.connectTimeout = .seconds(connectTimeoutSeconds)
        options.additionalStartupParameters = startupParameters
    }
}
