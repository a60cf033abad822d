import Glibc

/// Where the PostgreSQL password comes from: `catalog_password_file` when it is set, else the
/// systemd credential `catalog-password` (`LoadCredential=catalog-password:…` in the unit puts
/// it in `$CREDENTIALS_DIRECTORY`), else nowhere (a server that trusts the socket's peer).
///
/// The password itself is read only when connecting (``read()``), never kept in the
/// configuration, never logged and never printed.
public enum CatalogPasswordSource: Sendable, Equatable, CustomStringConvertible {
    case none
    /// `catalog_password_file`.
    case file(path: String)
    /// `$CREDENTIALS_DIRECTORY/catalog-password`.
    case credential(path: String)

    /// The credential's name in `$CREDENTIALS_DIRECTORY`.
    public static let credentialName = "catalog-password"

    /// Where the password is read from, said for `--check-config`.
    public var description: String {
        switch self {
        case .none: "no password (catalog_password_file is \"\" and there is no systemd credential \(Self.credentialName))"
        case .file(let path): "the password from \(TOMLText.quoted(path)) (catalog_password_file)"
        case .credential(let path): "the password from the systemd credential \(TOMLText.quoted(path))"
        }
    }

    /// The password: the file's first line (without its line break); nil for ``none``.
    public func read() throws(CatalogPasswordError) -> String? {
        let path: String
        switch self {
        case .none: return nil
        case .file(let file), .credential(let file): path = file
        }
        let text: String?
        do {
            text = try ConfigurationFile.text(at: path)
        } catch {
            if case .fileUnreadable(_, let reason) = error { throw .unreadable(self, reason: reason) }
            throw .unreadable(self, reason: "\(error)")
        }
        guard let text else { throw .unreadable(self, reason: "it does not exist") }
        let password = String(text.prefix { !$0.isNewline })
        guard !password.isEmpty else { throw .empty(self) }
        return password
    }
}

/// Why the PostgreSQL password cannot be read: one sentence naming the file and what to do.
public enum CatalogPasswordError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(CatalogPasswordSource, reason: String)
    case empty(CatalogPasswordSource)

    public var description: String {
        switch self {
        case .unreadable(let source, let reason):
            "cannot read \(source): \(reason); make it a file the daemon's user can read, holding the password on its first line"
        case .empty(let source):
            "\(source) is empty; write the PostgreSQL password on its first line"
        }
    }
}

extension UtensilConfiguration {
    /// Where the PostgreSQL password comes from, given the process environment (for `$CREDENTIALS_DIRECTORY`).
    public func catalogPasswordSource(environment: [String: String]) -> CatalogPasswordSource {
        if !catalogPasswordFile.isEmpty { return .file(path: catalogPasswordFile) }
        guard let folder = environment["CREDENTIALS_DIRECTORY"], !folder.isEmpty else { return .none }
        let path = (folder.hasSuffix("/") ? String(folder.dropLast()) : folder) + "/" + CatalogPasswordSource.credentialName
        var info = stat()
        return stat(path, &info) == 0 ? .credential(path: path) : .none
    }
}

/// The check on `catalog_password_file` when the configuration is loaded: the file exists and
/// is a regular file (after following links), so that a typo shows at `--check-config`. It is
/// read only when connecting.
enum CatalogPasswordFile {
    static func check(_ path: String) throws(SettingProblem) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR {
                throw SettingProblem("does not exist; write the PostgreSQL password into it (mode 0640, group of the daemon's user) or correct the path")
            }
            throw SettingProblem("cannot be examined (\(ConfigurationFile.errorText(code))); make it readable for the daemon's user")
        }
        guard info.st_mode & S_IFMT == S_IFREG else { throw SettingProblem("is not a regular file; name the file holding the password") }
        return path
    }
}
