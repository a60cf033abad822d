import Glibc
import NIOCore
import NIOPosix
import PostgresNIO

extension PostgresCatalogProblem {
    /// The problem behind an error of postgres-nio, decided by its code and SQLSTATE, never by
    /// the server's wording.
    static func classify(_ error: any Error, settings: PostgresCatalogSettings) -> PostgresCatalogProblem {
        let url = settings.url
        let server = url.serverDescription
        if let problem = error as? PostgresCatalogProblem { return problem }
        guard let error = error as? PSQLError else { return .unexpected(server: server, detail: "\(type(of: error))") }
        switch error.code {
        case .server:
            let state = error.serverInfo?[.sqlState] ?? "?????"
            switch state {
            case "28P01", "28000":
                return .authenticationFailed(user: url.user, server: server)
            case "3D000":
                return .databaseMissing(database: url.database, server: server)
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
        case .connectionError:
            return .unreachable(server: server, reason: reason(error.underlying))
        case .serverClosedConnection, .uncleanShutdown, .clientClosedConnection:
            return .unreachable(server: server, reason: "the connection was closed")
        case .authMechanismRequiresPassword:
            return .passwordMissing(user: url.user, server: server)
        case .unsupportedAuthMechanism, .saslError:
            return .authenticationUnsupported(user: url.user, server: server)
        default:
            return .unexpected(server: server, detail: "\(error.code)")
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
