/// Why utensild cannot use the PostgreSQL catalog. Every description is one sentence saying
/// what is wrong and what a person should do; none holds the password.
public enum PostgresCatalogProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// No connection: nothing listens there, no route, no socket file, or no answer in time.
    case unreachable(server: String, reason: String)
    /// The server refused the role's password (SQLSTATE 28P01; a role that does not exist is
    /// refused the same way when pg_hba.conf asks for a password).
    case authenticationFailed(user: String, server: String)
    /// The server asks for a password and none was given.
    case passwordMissing(user: String, server: String)
    /// The server asks for a way of logging in that utensild does not speak (GSSAPI, SSPI …).
    case authenticationUnsupported(user: String, server: String)
    /// pg_hba.conf has no line for this client address (as the server sees it, when it says),
    /// role and database, or a `reject` line matches first.
    case noHostRule(user: String, database: String, server: String, client: String?, overSocket: Bool, tls: Bool)
    /// pg_hba.conf lets this role in over TLS only (`hostssl`), and `sslmode=disable` asks for none.
    case tlsRequired(user: String, database: String, server: String)
    /// Peer authentication over the Unix socket: the Unix user utensild runs as is not the role.
    case peerAuthenticationFailed(user: String, server: String)
    /// The line of pg_hba.conf that matches names another way of logging in (ident, cert,
    /// ldap …), and it refused the role.
    case authenticationRefused(user: String, server: String)
    /// The server has no role of that name, or the role may not log in (NOLOGIN).
    case roleMissing(user: String, server: String)
    /// The server has no database of that name.
    case databaseMissing(database: String, server: String)
    /// The role may not do what the catalog needs; `missing` says what, `grant` how to give it.
    case noRights(user: String, database: String, missing: String, grant: String)
    /// `sslmode` asks for TLS and the server does not offer it (`ssl = off`).
    case tlsNotOffered(server: String, sslMode: String)
    /// The server's certificate did not verify against `sslrootcert` (`reason` says how).
    case certificateRejected(server: String, rootCertificate: String, reason: String)
    /// The `sslrootcert` file could not be used (not PEM, no certificate in it …).
    case rootCertificateUnusable(path: String, reason: String)
    /// The server's version is older than ``PostgresCatalogCheck/minimumServerVersion``.
    case serverTooOld(version: String, server: String)
    /// The server lacks an extension the schema needs (`pg_trgm`, in the contrib package).
    case extensionMissing(name: String, server: String)
    /// The catalog holds migrations this utensild (`version`) does not know: a newer one
    /// migrated it, `newerVersion` when a host's heartbeat shows which.
    case schemaNewer(migrations: [String], database: String, version: String, newerVersion: String?)
    /// The server is there but cannot serve now (starting up, shutting down, too many connections …).
    case unavailable(server: String, sqlState: String)
    /// Anything else, with the SQLSTATE or the client's error code.
    case unexpected(server: String, detail: String)

    /// Whether a person must change something (the configuration, the server's set-up, the
    /// program) before utensild can use the catalog: starting again would not mend it. False for
    /// a server that cannot be reached or cannot serve now, and for an unexpected failure.
    public var needsAPerson: Bool {
        switch self {
        case .unreachable, .unavailable, .unexpected: false
        default: true
        }
    }

    public var description: String {
        switch self {
        case .unreachable(let server, let reason):
            "cannot reach PostgreSQL at \(server) (\(reason)); check that the server runs and listens there (listen_addresses, port, unix_socket_directories) and that no firewall is in the way"
        case .authenticationFailed(let user, let server):
            "PostgreSQL at \(server) refused the password of role \(user); put the role's password in catalog_password_file (or the credential catalog-password), or if the server's log says the role does not exist, create it (CREATE ROLE \(user) LOGIN PASSWORD '…')"
        case .passwordMissing(let user, let server):
            "PostgreSQL at \(server) asks for the password of role \(user), and none is configured; put it in the file named by catalog_password_file (or pass the credential catalog-password)"
        case .authenticationUnsupported(let user, let server):
            "PostgreSQL at \(server) asks role \(user) to log in in a way utensild does not support; allow scram-sha-256 (or peer over the socket) for it in pg_hba.conf"
        case .noHostRule(let user, let database, let server, let client, let overSocket, let tls):
            "PostgreSQL at \(server) has no pg_hba.conf line that lets role \(user) into database \(database) "
                + (overSocket ? "over the socket" : "from \(client ?? "this host")")
                + "; add \"\(Self.hostRule(user: user, database: database, client: client, overSocket: overSocket, tls: tls))\" to pg_hba.conf above the distribution's \"local all all peer\" and \"host all all …\" lines (the first line that matches decides), then reload PostgreSQL"
        case .tlsRequired(let user, let database, let server):
            "PostgreSQL at \(server) lets role \(user) into database \(database) over TLS only (hostssl in pg_hba.conf), and catalog says sslmode=disable; set sslmode=verify-full with sslrootcert (or sslmode=require) in catalog"
        case .peerAuthenticationFailed(let user, let server):
            "PostgreSQL at \(server) refused role \(user) by peer authentication: the Unix user utensild runs as is not called \(user); run utensild as that user, map the two in pg_ident.conf, or add \"local all \(user) scram-sha-256\" to pg_hba.conf above the distribution's \"local all all peer\" line and configure catalog_password_file"
        case .authenticationRefused(let user, let server):
            "PostgreSQL at \(server) refused role \(user) by the way of logging in that its pg_hba.conf line asks for (ident, cert, ldap …); allow scram-sha-256 for it in pg_hba.conf, above the line that matches now"
        case .roleMissing(let user, let server):
            "PostgreSQL at \(server) has no role \(user) that may log in; create it with CREATE ROLE \(user) LOGIN PASSWORD '…' (or ALTER ROLE \(user) LOGIN), or correct the user in catalog"
        case .databaseMissing(let database, let server):
            "PostgreSQL at \(server) has no database \(database); create it with CREATE DATABASE \(database) OWNER <role>, or correct the name in catalog"
        case .noRights(let user, let database, let missing, let grant):
            "role \(user) may not \(missing) in database \(database); \(grant)"
        case .tlsNotOffered(let server, let sslMode):
            "PostgreSQL at \(server) does not offer TLS, and catalog says sslmode=\(sslMode); turn TLS on in the server's postgresql.conf (ssl = on, ssl_cert_file, ssl_key_file; see docs/SEVERAL-HOSTS.md), or reach it over a network you trust with sslmode=disable"
        case .certificateRejected(let server, let rootCertificate, let reason):
            "the certificate of PostgreSQL at \(server) did not verify against sslrootcert=\(rootCertificate) (\(reason)); name the authority that signed the server's certificate in sslrootcert, and with sslmode=verify-full connect by a name or address the certificate is made out to"
        case .rootCertificateUnusable(let path, let reason):
            "sslrootcert=\(path) in catalog cannot be used (\(reason)); give the PEM file of the certificate authority that signed the server's certificate"
        case .serverTooOld(let version, let server):
            "PostgreSQL at \(server) is version \(version), older than the \(PostgresCatalogCheck.minimumServerVersionText) utensild needs; upgrade the server"
        case .extensionMissing(let name, let server):
            "PostgreSQL at \(server) does not have the extension \(name); install the server's contrib package (postgresql-contrib on Debian) on the database host"
        case .schemaNewer(let migrations, let database, let version, let newerVersion):
            "the catalog in database \(database) was migrated by "
                + (newerVersion.map { "utensild \($0)" } ?? "a newer utensild")
                + " (\(migrations.joined(separator: ", "))), which this utensild \(version) does not know; upgrade utensild on this host"
                + (newerVersion.map { " to \($0) or later" } ?? "")
        case .unavailable(let server, let sqlState):
            "PostgreSQL at \(server) cannot serve now (SQLSTATE \(sqlState): starting, stopping or out of connections); try again shortly, or raise max_connections"
        case .unexpected(let server, let detail):
            "PostgreSQL at \(server) failed unexpectedly (\(detail)); see the server's log"
        }
    }

    /// The pg_hba.conf line that lets `user` into `database`: `local` over the socket, else
    /// `host` (`hostssl` with TLS) for the client's address alone.
    static func hostRule(user: String, database: String, client: String?, overSocket: Bool, tls: Bool) -> String {
        if overSocket { return "local \(database) \(user) scram-sha-256" }
        let address = client.map { $0 + ($0.contains(":") ? "/128" : "/32") } ?? "ADDRESS/32"
        return "\(tls ? "hostssl" : "host") \(database) \(user) \(address) scram-sha-256"
    }
}
