/// Builds the effective configuration from its layers: flags beat environment beat file beat defaults.
///
/// Every value given in any layer is checked, even one a higher layer overrides: a bad file is
/// reported rather than hidden by a flag. The first problem found is thrown (file, then
/// environment in name order, then flags in key order).
public enum ConfigurationLoader {
    public static let defaultFile = "/etc/utensild/utensild.toml"

    /// Names the configuration file when `file` is nil, like `--config` (so it must exist).
    public static let fileEnvironmentName = "UTENSILD_CONFIG"

    /// `file`: nil = the default file (missing is fine), non-nil = must exist.
    ///
    /// - Parameters:
    ///   - environment: the process environment; only `UTENSILD_*` variables are read, and each
    ///     must name a key (or be `UTENSILD_CONFIG`). Values are parsed like flag values.
    ///   - flags: values of `--<key-with-dashes>` flags as typed, parsed per key type.
    public static func load(file: String?, environment: [String: String], flags: [ConfigKey: String])
        throws(ConfigurationError) -> UtensilConfiguration {
        try load(file: file, defaultFile: defaultFile, environment: environment, flags: flags)
    }

    /// ``load(file:environment:flags:)`` with another default file (tests).
    static func load(file: String?, defaultFile: String, environment: [String: String], flags: [ConfigKey: String])
        throws(ConfigurationError) -> UtensilConfiguration {
        var layers = Layers()
        let named = file ?? environment[fileEnvironmentName]
        let path = named ?? defaultFile
        if let text = try ConfigurationFile.text(at: path) {
            for (key, raw) in try TOMLSettings.parse(text, path: path) {
                try layers.apply(raw, to: key, from: .file(path: path))
            }
        } else if named != nil {
            throw .fileNotFound(path: path)
        }
        for (name, value) in environment.sorted(by: { $0.key < $1.key })
        where name.hasPrefix(ConfigKey.environmentPrefix) && name != fileEnvironmentName {
            guard let key = ConfigKey(environmentName: name) else {
                throw .unknownKey(name, source: .environment(name: name), suggestion: KeySuggestion.forEnvironmentName(name))
            }
            try layers.apply(.text(value), to: key, from: .environment(name: name))
        }
        for key in ConfigKey.allCases {
            if let value = flags[key] { try layers.apply(.text(value), to: key, from: .flag(name: "--" + key.flagName)) }
        }
        return try layers.finish()
    }
}

/// The configuration being layered, with where each key's value came from.
private struct Layers {
    var configuration = UtensilConfiguration.defaults
    var sources: [ConfigKey: ConfigurationSource] = [:]

    mutating func apply(_ raw: RawSetting, to key: ConfigKey, from source: ConfigurationSource) throws(ConfigurationError) {
        try configuration.assign(raw, to: key, from: source)
        sources[key] = source
    }

    /// Derives `rejected` when no layer set it, then checks how the paths relate.
    func finish() throws(ConfigurationError) -> UtensilConfiguration {
        var result = configuration
        if sources[.rejected] == nil {
            result.rejected = PathRules.sibling("rejected", of: result.inbox)
        }
        if let (key, problem) = PathRules.conflict(in: result) {
            throw .invalidValue(key, source: sources[key] ?? .builtInDefault,
                                value: result.renderedValue(of: key), problem: problem)
        }
        return result
    }
}
