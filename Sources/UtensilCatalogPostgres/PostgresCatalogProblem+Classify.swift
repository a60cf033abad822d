import Glibc
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO
import UtensilConfig

extension PostgresCatalogProblem {
    /// The problem behind an error of postgres-nio, decided by its code, SQLSTATE and (where a
    /// SQLSTATE has several causes) the server's routine field, never by the server's wording.
    static func classify(_ error: any Error, settings: PostgresCatalogSettings) -> PostgresCatalogProblem {
        let url = settings.url
        let server = url.serverDescription
        if let problem = error as? PostgresCatalogProblem { return problem }
        guard let error = error as? PSQLError else { return .unexpected(server: server, detail: "\(type(of: error))") }
        switch error.code {
        case .server:
            let state = error.serverInfo?[.sqlState] ?? "?????"
            let routine = error.serverInfo?[.routine] ?? ""
            switch state {
            case "28P01":
                return .authenticationFailed(user: url.user, server: server)
            case "28000":
                return invalidAuthorization(routine: routine, message: error.serverInfo?[.message], url: url)
            case "3D000":
                return .databaseMissing(database: url.database, server: server)
            case "42501" where routine == "CheckMyDatabase":
                return .noRights(
                    user: url.user, database: url.database, missing: "connect",
                    grant: "as a superuser run GRANT CONNECT ON DATABASE \(url.database) TO \(url.user);")
            case "42501":
                return .noRights(
                    user: url.user, database: url.database, missing: "change the catalog's schema",
                    grant: grantAdvice(user: url.user, database: url.database))
            case "58P01":
                return .extensionMissing(name: "pg_trgm", server: server)
            default:
                // 08 connection exceptions, 53 insufficient resources, 57 operator intervention.
                if state.hasPrefix("08") || state.hasPrefix("53") || state.hasPrefix("57") {
                    return .unavailable(server: server, sqlState: state)
                }
                return .unexpected(server: server, detail: "SQLSTATE \(state)")
            }
        case .sslUnsupported:
            return .tlsNotOffered(server: server, sslMode: url.sslMode.rawValue)
        case .connectionError, .failedToAddSSLHandler, .uncleanShutdown:
            if let problem = tlsProblem(error.underlying, url: url) { return problem }
            if error.code == .uncleanShutdown { return .unreachable(server: server, reason: "the connection was closed") }
            return .unreachable(server: server, reason: reason(error.underlying))
        case .serverClosedConnection, .clientClosedConnection:
            return .unreachable(server: server, reason: "the connection was closed")
        case .authMechanismRequiresPassword:
            return .passwordMissing(user: url.user, server: server)
        case .unsupportedAuthMechanism, .saslError:
            return .authenticationUnsupported(user: url.user, server: server)
        default:
            return .unexpected(server: server, detail: "\(error.code)")
        }
    }

    /// SQLSTATE 28000 (invalid authorization specification), told apart by the routine of
    /// PostgreSQL that raised it: `ClientAuthentication` (no pg_hba.conf line matches, or a
    /// `reject` line does), `auth_failed` (a way of logging in other than a password refused
    /// the role: peer over the socket), `InitializeSessionUserId` (no such role, or NOLOGIN).
    private static func invalidAuthorization(routine: String, message: String?, url: PostgresURL) -> PostgresCatalogProblem {
        let server = url.serverDescription
        let overSocket = url.socketPath != nil
        switch routine {
        case "ClientAuthentication":
            return .noHostRule(
                user: url.user, database: url.database, server: server, client: overSocket ? nil : clientAddress(in: message),
                overSocket: overSocket, tls: url.requiresTLS)
        case "auth_failed":
            return overSocket ? .peerAuthenticationFailed(user: url.user, server: server) : .authenticationRefused(user: url.user, server: server)
        case "InitializeSessionUserId":
            return .roleMissing(user: url.user, server: server)
        default:
            return .authenticationRefused(user: url.user, server: server)
        }
    }

    /// The client's address as the server saw it, from `no pg_hba.conf entry for host "…"`;
    /// only to suggest a pg_hba.conf line (nil when the message says it otherwise, translated say).
    private static func clientAddress(in message: String?) -> String? {
        guard let message, let start = message.range(of: "host \"") else { return nil }
        let rest = message[start.upperBound...]
        guard let end = rest.firstIndex(of: "\""), end > rest.startIndex else { return nil }
        let address = String(rest[..<end])
        let allowed = address.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isASCIIHexDigit || ".:".unicodeScalars.contains($0)) }
        return allowed ? address : nil
    }

    /// A failed TLS handshake as a problem: the certificate not signed by `sslrootcert`'s
    /// authority, or not made out to the server's name; nil when `underlying` is no TLS error.
    private static func tlsProblem(_ underlying: (any Error)?, url: PostgresURL) -> PostgresCatalogProblem? {
        let rootCertificate = url.sslRootCert ?? "(none)"
        switch underlying {
        case let error as NIOSSLExtraError where error == .failedToValidateHostname:
            let name: String = switch url.server {
            case .tcp(let host): host
            case .unixSocket: "the server"
            }
            return .certificateRejected(
                server: url.serverDescription, rootCertificate: rootCertificate, reason: "it is not made out to \(name)")
        case let error as NIOSSLError:
            if case .handshakeFailed(let failure) = error, "\(failure)".contains("CERTIFICATE_VERIFY_FAILED") {
                return .certificateRejected(
                    server: url.serverDescription, rootCertificate: rootCertificate,
                    reason: "it is not signed by that authority, or has expired")
            }
            return .unexpected(server: url.serverDescription, detail: "the TLS handshake failed: \(error)")
        default:
            return nil
        }
    }

    /// How to give `user` the rights the catalog needs, ready to paste into psql.
    static func grantAdvice(user: String, database: String) -> String {
        "as a superuser run ALTER DATABASE \(database) OWNER TO \(user); ALTER SCHEMA public OWNER TO \(user); (see docs/SEVERAL-HOSTS.md)"
    }

    /// Why a connection could not be made, in a few words.
    private static func reason(_ underlying: (any Error)?) -> String {
        switch underlying {
        case let error as IOError:
            return String(cString: strerror(error.errnoCode)).lowercased()
        case let error as NIOConnectionError:
            if error.dnsAAAAError != nil || error.dnsAError != nil, error.connectionErrors.isEmpty {
                return "the host name does not resolve"
            }
            return error.connectionErrors.first.map { reason($0.error) } ?? "no address to connect to"
        case let error as ChannelError:
            if case .connectTimeout(let amount) = error { return "no answer within \(amount.nanoseconds / 1_000_000_000) seconds" }
            return "\(error)"
        case let error?:
            return "\(error)"
        case nil:
            return "no connection"
        }
    }
}
