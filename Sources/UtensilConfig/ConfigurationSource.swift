/// Where a configuration value came from; errors name it so a person knows what to edit.
public enum ConfigurationSource: Sendable, Equatable, CustomStringConvertible {
    /// The built-in default (or, for `rejected`, the folder derived from `inbox`).
    case builtInDefault
    /// A key in this TOML file.
    case file(path: String)
    /// This environment variable, e.g. `UTENSILD_WORKERS`.
    case environment(name: String)
    /// This flag, e.g. `--workers`.
    case flag(name: String)

    public var description: String {
        switch self {
        case .builtInDefault: "the built-in default"
        case .file(let path): "file \(TOMLText.quoted(path))"
        case .environment(let name): "environment variable \(TOMLText.displayName(name))"
        case .flag(let name): "flag \(TOMLText.displayName(name))"
        }
    }
}
