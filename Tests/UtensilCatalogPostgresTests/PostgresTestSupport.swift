import Logging
import UtensilCatalogPostgres
import UtensilConfig
import UtensilTestSupport

extension PostgresServer {
    /// Settings for the test role over loopback TCP (or the socket), with its password unless told otherwise.
    func settings(
        user: String? = nil, password: String?? = .none, database: String? = nil, overSocket: Bool = false
    ) -> PostgresCatalogSettings {
        let url = PostgresURL(
            user: user ?? role, server: overSocket ? .unixSocket(directory: socketDirectory) : .tcp(host: "127.0.0.1"),
            port: port, database: database ?? self.database)
        let chosen: String? = switch password {
        case .none: self.password
        case .some(let given): given
        }
        return PostgresCatalogSettings(url: url, password: chosen)
    }
}

let quietLogger = Logger(label: "postgres-test") { _ in SwiftLogNoOpLogHandler() }
