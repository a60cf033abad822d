/// `catalog`: where the catalog lives.
public enum CatalogLocation: Sendable, Equatable, CustomStringConvertible {
    /// `"sqlite"`: the file `utensils.sqlite` in `state_dir`.
    case sqlite
    /// A PostgreSQL database shared by several hosts.
    case postgres(PostgresURL)

    /// The value as written in the configuration (a PostgreSQL URL in its canonical form).
    public var description: String {
        switch self {
        case .sqlite: "sqlite"
        case .postgres(let url): url.description
        }
    }

    /// `"sqlite"` or a PostgreSQL URL (see ``PostgresURL``) whose `sslrootcert` file can be read.
    static func parse(_ text: String) throws(SettingProblem) -> CatalogLocation {
        if text == "sqlite" { return .sqlite }
        if PostgresURL.hasScheme(text) {
            let url = try PostgresURL.parse(text)
            if let rootCertificate = url.sslRootCert { try PostgresURL.checkRootCertificate(rootCertificate) }
            return .postgres(url)
        }
        throw SettingProblem(
            "is neither \"sqlite\" nor a PostgreSQL URL; give \"sqlite\", \"postgresql://USER@HOST:PORT/DB\" or \"postgresql://USER@/DB?host=/run/postgresql\"")
    }
}

extension UtensilConfiguration {
    /// This host's name when its catalog is shared with other hosts (PostgreSQL), so that its
    /// state-folder lock and its staging are its own; nil when the catalog is its own (SQLite).
    public var sharedHostName: String? {
        guard case .postgres = catalog else { return nil }
        return effectiveHostName
    }
}
