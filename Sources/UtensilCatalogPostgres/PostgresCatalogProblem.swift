/// Why utensild cannot use the PostgreSQL catalog. Every description is one sentence saying
/// what is wrong and what a person should do; none holds the password.
public enum PostgresCatalogProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// No connection: nothing listens there, no route, no socket file, or no answer in time.
    case unreachable(server: String, reason: String)
    /// The server refused the role's password (or has no such role).
    case authenticationFailed(user: String, server: String)
    /// The server asks for a password and none was given.
    case passwordMissing(user: String, server: String)
    /// The server asks for a way of logging in that utensild does not speak (GSSAPI, SSPI …).
    case authenticationUnsupported(user: String, server: String)
    /// The server has no database of that name.
    case databaseMissing(database: String, server: String)
    /// The role may not do what the catalog needs; `missing` says what, `grant` how to give it.
    case noRights(user: String, database: String, missing: String, grant: String)
    /// The server's version is older than ``PostgresCatalogCheck/minimumServerVersion``.
    case serverTooOld(version: String, server: String)
    /// The server lacks an extension the schema needs (`pg_trgm`, in the contrib package).
    case extensionMissing(name: String, server: String)
    /// The catalog holds migrations this utensild does not know: a newer one migrated it.
    case schemaNewer(migrations: [String], database: String)
    /// The server is there but cannot serve now (starting up, shutting down, too many connections …).
    case unavailable(server: String, sqlState: String)
    /// Anything else, with the SQLSTATE or the client's error code.
    case unexpected(server: String, detail: String)

    public var description: String {
        switch self {
        case .unreachable(let server, let reason):
            "cannot reach PostgreSQL at \(server) (\(reason)); check that the server runs and listens there (listen_addresses, port, unix_socket_directories) and that no firewall is in the way"
        case .authenticationFailed(let user, let server):
            "PostgreSQL at \(server) refused the password of role \(user); check the role exists and the password in catalog_password_file (or the credential catalog-password) is the role's"
        case .passwordMissing(let user, let server):
            "PostgreSQL at \(server) asks for the password of role \(user), and none is configured; put it in the file named by catalog_password_file (or pass the credential catalog-password)"
        case .authenticationUnsupported(let user, let server):
            "PostgreSQL at \(server) asks role \(user) to log in in a way utensild does not support; allow scram-sha-256 (or peer over the socket) for it in pg_hba.conf"
        case .databaseMissing(let database, let server):
            "PostgreSQL at \(server) has no database \(database); create it with CREATE DATABASE \(database) OWNER <role>, or correct the name in catalog"
        case .noRights(let user, let database, let missing, let grant):
            "role \(user) may not \(missing) in database \(database); \(grant)"
        case .serverTooOld(let version, let server):
            "PostgreSQL at \(server) is version \(version), older than the \(PostgresCatalogCheck.minimumServerVersionText) utensild needs; upgrade the server"
        case .extensionMissing(let name, let server):
            "PostgreSQL at \(server) does not have the extension \(name); install the server's contrib package (postgresql-contrib on Debian) on the database host"
        case .schemaNewer(let migrations, let database):
            "the catalog in database \(database) was migrated by a newer utensild (\(migrations.joined(separator: ", "))); upgrade utensild on this host"
        case .unavailable(let server, let sqlState):
            "PostgreSQL at \(server) cannot serve now (SQLSTATE \(sqlState): starting, stopping or out of connections); try again shortly, or raise max_connections"
        case .unexpected(let server, let detail):
            "PostgreSQL at \(server) failed unexpectedly (\(detail)); see the server's log"
        }
    }
}
