/// Why a configuration cannot be used. Every description is one line that names the key (or file)
/// and where the value came from, and says what to do; the daemon exits 78 (EX_CONFIG).
public enum ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A file named with `--config` (or `UTENSILD_CONFIG`) does not exist.
    case fileNotFound(path: String)
    /// The file exists but cannot be read (permissions, a folder, not UTF-8 …).
    case fileUnreadable(path: String, reason: String)
    /// The file is not valid TOML.
    case syntaxError(path: String, line: Int, column: Int, message: String)
    /// A key in the file, or a `UTENSILD_` environment variable, that utensild does not know.
    case unknownKey(String, source: ConfigurationSource, suggestion: String?)
    /// A value of the wrong TOML type, e.g. a string where an integer belongs.
    case wrongType(ConfigKey, source: ConfigurationSource, expected: String, found: String)
    /// A value of the right type that is not acceptable: out of range, a relative path, an unknown choice …
    case invalidValue(ConfigKey, source: ConfigurationSource, value: String, problem: String)
    /// A folder (or the socket's folder) that ``UtensilConfiguration/prepareFolders()`` cannot make usable.
    case unusableFolder(ConfigKey, path: String, problem: String)

    /// The key the error is about, if it is about one key.
    public var key: ConfigKey? {
        switch self {
        case .fileNotFound, .fileUnreadable, .syntaxError, .unknownKey: nil
        case .wrongType(let key, _, _, _), .invalidValue(let key, _, _, _), .unusableFolder(let key, _, _): key
        }
    }

    /// Where the offending value came from, if known.
    public var source: ConfigurationSource? {
        switch self {
        case .fileNotFound(let path), .fileUnreadable(let path, _), .syntaxError(let path, _, _, _): .file(path: path)
        case .unknownKey(_, let source, _), .wrongType(_, let source, _, _), .invalidValue(_, let source, _, _): source
        case .unusableFolder: nil
        }
    }

    public var description: String {
        let text: String
        switch self {
        case .fileNotFound(let path):
            text = "configuration file \(TOMLText.quoted(path)) does not exist; create it or name an existing file"
        case .fileUnreadable(let path, let reason):
            text = "cannot read configuration file \(TOMLText.quoted(path)): \(reason)"
        case .syntaxError(let path, let line, let column, let message):
            text = "configuration file \(TOMLText.quoted(path)), line \(line), column \(column): TOML syntax error: \(message)"
        case .unknownKey(let name, let source, let suggestion):
            let hint = suggestion.map { "did you mean \($0)?" } ?? Self.knownKeysHint(for: source)
            switch source {
            case .environment:
                text = "unknown environment variable \(TOMLText.displayName(name)) (variables starting with \(ConfigKey.environmentPrefix) configure utensild): \(hint) Otherwise unset it"
            default:
                text = "unknown key \(TOMLText.quoted(name)) in \(source): \(hint)"
            }
        case .wrongType(let key, let source, let expected, let found):
            text = "\(key.rawValue) (from \(source)): expected \(expected), found \(found)"
        case .invalidValue(let key, let source, let value, let problem):
            text = "\(key.rawValue) = \(value) (from \(source)): \(problem)"
        case .unusableFolder(let key, let path, let problem):
            text = "\(key.rawValue): cannot use \(TOMLText.quoted(path)): \(problem)"
        }
        return Self.singleLine(text)
    }

    private static func knownKeysHint(for source: ConfigurationSource) -> String {
        if case .environment = source {
            return "known ones are " + ConfigKey.allCases.map(\.environmentName).joined(separator: ", ") + "."
        }
        return "known keys are " + ConfigKey.allCases.map(\.rawValue).joined(separator: ", ") + "."
    }

    /// A last guard for the one-line promise: any line break left (e.g. in a library message) becomes a space.
    private static func singleLine(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 })
    }
}
