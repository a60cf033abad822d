import PostgresNIO
import UtensilConfig

/// What it takes to reach the PostgreSQL catalog: the server, role and database of `catalog`
/// and the password read from `catalog_password_file` or the systemd credential.
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

    /// For one connection (``PostgresCatalogCheck``, ``PostgresMigrator``). No TLS: reach the
    /// server over its Unix socket or a network you trust (see docs/SEVERAL-HOSTS.md).
    public var connectionConfiguration: PostgresConnection.Configuration {
        configuration(PostgresConnection.Configuration.self)
    }

    /// For the daemon's pool of connections (``PostgresCatalogService``), the same as
    /// ``connectionConfiguration``.
    public var clientConfiguration: PostgresClient.Configuration {
        configuration(PostgresClient.Configuration.self)
    }

    /// The server, role, password and database of ``url``, no TLS, this connect timeout and
    /// `application_name`, in either of postgres-nio's configurations.
    private func configuration<Configuration: PostgresEndpointConfiguration>(_: Configuration.Type) -> Configuration {
        var configuration: Configuration = switch url.server {
        case .tcp(let host):
            .init(host: host, port: url.port, username: url.user, password: password, database: url.database, tls: Configuration.noTLS)
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
    static var noTLS: TLS { get }
    init(host: String, port: Int, username: String, password: String?, database: String?, tls: TLS)
    init(unixSocketPath: String, username: String, password: String?, database: String?)
    mutating func setCatalogOptions(connectTimeoutSeconds: Int64, startupParameters: [(String, String)])
}

extension PostgresConnection.Configuration: PostgresEndpointConfiguration {
    static var noTLS: TLS { .disable }

    mutating func setCatalogOptions(connectTimeoutSeconds: Int64, startupParameters: [(String, String)]) {
        options.connectTimeout = .seconds(connectTimeoutSeconds)
        options.additionalStartupParameters = startupParameters
    }
}

extension PostgresClient.Configuration: PostgresEndpointConfiguration {
    static var noTLS: TLS { .disable }

    mutating func setCatalogOptions(connectTimeoutSeconds: Int64, startupParameters: [(String, String)]) {
        options.connectTimeout = .seconds(connectTimeoutSeconds)
        options.additionalStartupParameters = startupParameters
    }
}
