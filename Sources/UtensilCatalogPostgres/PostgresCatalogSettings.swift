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
        var configuration: PostgresConnection.Configuration
        switch url.server {
        case .tcp(let host):
            configuration = .init(
                host: host, port: url.port, username: url.user, password: password, database: url.database, tls: .disable)
        case .unixSocket:
            configuration = .init(
                unixSocketPath: url.socketPath ?? "", username: url.user, password: password, database: url.database)
        }
        configuration.options.connectTimeout = .seconds(connectTimeoutSeconds)
        configuration.options.additionalStartupParameters = [("application_name", "utensild")]
        return configuration
    }

    /// For the daemon's pool of connections (``PostgresCatalogService``).
    public var clientConfiguration: PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        switch url.server {
        case .tcp(let host):
            configuration = .init(
                host: host, port: url.port, username: url.user, password: password, database: url.database, tls: .disable)
        case .unixSocket:
            configuration = .init(
                unixSocketPath: url.socketPath ?? "", username: url.user, password: password, database: url.database)
        }
        configuration.options.connectTimeout = .seconds(connectTimeoutSeconds)
        configuration.options.additionalStartupParameters = [("application_name", "utensild")]
        return configuration
    }
}
