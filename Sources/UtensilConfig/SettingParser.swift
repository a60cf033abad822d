/// Turns one ``RawSetting`` into a typed value for its key, or a ``ConfigurationError`` naming key and source.
struct SettingParser {
    let key: ConfigKey
    let raw: RawSetting
    let source: ConfigurationSource

    func absolutePath() throws(ConfigurationError) -> String {
        let text = try string(expected: "a string holding an absolute path")
        return try checking { () throws(SettingProblem) in try PathRules.normalizedAbsolute(text) }
    }

    /// `""` (no hook) or the absolute path of an executable regular file.
    func hookProgram() throws(ConfigurationError) -> String {
        let text = try string(expected: "a string holding the absolute path of a program, or \"\" for none")
        if text.isEmpty { return "" }
        let path = try checking { () throws(SettingProblem) in try PathRules.normalizedAbsolute(text) }
        return try checking { () throws(SettingProblem) in try HookProgram.check(path) }
    }

    /// `""` (the machine's name) or 1 to 63 of `A-Z a-z 0-9 . -`.
    func hostName() throws(ConfigurationError) -> String {
        let text = try string(expected: "a string holding a host name, or \"\" for the machine's")
        return try checking { () throws(SettingProblem) in try HostName.check(text) }
    }

    /// `"sqlite"` or a PostgreSQL URL without a password. A refused value is shown with any
    /// password in it hidden.
    func catalog() throws(ConfigurationError) -> CatalogLocation {
        let text = try string(expected: "a string: \"sqlite\" or a PostgreSQL URL such as \"postgresql://utensil@db.example.org:5432/utensils\"")
        do throws(SettingProblem) {
            return try CatalogLocation.parse(text)
        } catch {
            throw .invalidValue(key, source: source, value: TOMLText.quoted(PostgresURL.redacted(text)), problem: error.message)
        }
    }

    /// `""` or the absolute path of a regular file (holding a password: checked to exist, not read).
    func passwordFile() throws(ConfigurationError) -> String {
        let text = try string(expected: "a string holding the absolute path of a file, or \"\" for none")
        if text.isEmpty { return "" }
        let path = try checking { () throws(SettingProblem) in try PathRules.normalizedAbsolute(text) }
        return try checking { () throws(SettingProblem) in try CatalogPasswordFile.check(path) }
    }

    /// `"local"` or `"s3://BUCKET/PREFIX"`.
    func storage() throws(ConfigurationError) -> StorageLocation {
        let text = try string(expected: "a string: \"local\" or \"s3://BUCKET/PREFIX\"")
        return try checking { () throws(SettingProblem) in try StorageLocation.parse(text) }
    }

    /// `""` or the S3 API's base URL.
    func storageEndpoint() throws(ConfigurationError) -> String {
        let text = try string(expected: "a string: \"\" or the S3 API's base URL")
        return try checking { () throws(SettingProblem) in try StorageSettingRules.endpoint(text) }
    }

    /// A region's name.
    func storageRegion() throws(ConfigurationError) -> String {
        let text = try string(expected: "a string: the region requests are signed for, as \"us-east-1\"")
        return try checking { () throws(SettingProblem) in try StorageSettingRules.region(text) }
    }

    /// `""` or the absolute path of an existing regular file (the bucket's keys: not read here).
    func storageCredentialsFile() throws(ConfigurationError) -> String {
        let text = try string(expected: "a string holding the absolute path of a file, or \"\" for none")
        if text.isEmpty { return "" }
        let path = try checking { () throws(SettingProblem) in try PathRules.normalizedAbsolute(text) }
        return try checking { () throws(SettingProblem) in try StorageSettingRules.credentialsFile(path) }
    }

    func socketPath() throws(ConfigurationError) -> String {
        let path = try absolutePath()
        if path.utf8.count > Limits.socketPathBytes {
            throw invalid("is \(path.utf8.count) bytes long, but a Unix socket path can have at most \(Limits.socketPathBytes); choose a shorter path")
        }
        return path
    }

    func integer(in range: ClosedRange<Int>, meaning: String = "") throws(ConfigurationError) -> Int {
        let value: Int
        switch raw {
        case .tomlInteger(let v, _): value = v
        case .text(let s):
            guard let v = Int(s) else { throw invalid("is not a whole number; \(rangeText(range))\(meaning)") }
            value = v
        default: throw wrongType(range.upperBound == Int.max ? "an integer greater than \(range.lowerBound - 1)"
                                 : "an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        guard range.contains(value) else { throw invalid("is out of range; \(rangeText(range))\(meaning)") }
        return value
    }

    /// A duration in seconds: `minimum` (inclusive unless `allowsMinimum` is false) … `maximum`, fractions allowed.
    func seconds(minimum: Double, allowsMinimum: Bool, maximum: Double) throws(ConfigurationError) -> Double {
        try decimal(minimum: minimum, allowsMinimum: allowsMinimum, maximum: maximum, unit: "seconds", example: "2 or 0.5")
    }

    /// A number of `unit`s, fractions allowed, within the bounds.
    func decimal(
        minimum: Double, allowsMinimum: Bool, maximum: Double, unit: String, example: String
    ) throws(ConfigurationError) -> Double {
        let bounds = "give \(unit) " + (allowsMinimum ? "from \(Int(minimum)) to" : "greater than \(Int(minimum)) and at most")
            + " \(Int(maximum)), like \(example)"
        let value: Double
        switch raw {
        case .tomlInteger(let v, _): value = Double(v)
        case .tomlFloat(let v): value = v
        case .text(let s):
            guard Self.isPlainDecimal(s), let v = Double(s) else { throw invalid("is not a number; \(bounds)") }
            value = v
        default: throw wrongType("a number of \(unit), like \(example)")
        }
        guard value.isFinite else { throw invalid("is not a finite number; \(bounds)") }
        guard allowsMinimum ? value >= minimum : value > minimum, value <= maximum else {
            throw invalid("is out of range; \(bounds)")
        }
        return value
    }

    func choice<Choice: RawRepresentable & CaseIterable>(_: Choice.Type) throws(ConfigurationError) -> Choice
    where Choice.RawValue == String {
        let names = Choice.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        let text = try string(expected: "a string, one of \(names)")
        guard let choice = Choice(rawValue: text) else { throw invalid("is not one of \(names)") }
        return choice
    }

    func webListen() throws(ConfigurationError) -> WebListen {
        let text = try string(expected: "a string: \"HOST:PORT\", \"unix:PATH\" or \"\"")
        return try checking { () throws(SettingProblem) in try WebListen.parse(text) }
    }

    /// A TOML array of strings, or a comma-separated list from the environment or a flag.
    func webHosts() throws(ConfigurationError) -> [String] {
        let names: [String]
        switch raw {
        case .tomlStrings(let list): names = list
        case .text(let s): names = WebHosts.split(s)
        default: throw wrongType("an array of host names, like [\"photos.example.org\"]")
        }
        return try checking { () throws(SettingProblem) in try WebHosts.parse(list: names) }
    }

    func socketMode() throws(ConfigurationError) -> UInt32 {
        switch raw {
        case .text(let s), .tomlString(let s):
            try checking { () throws(SettingProblem) in try SocketMode.fromText(s) }
        case .tomlInteger(let value, let literal):
            try checking { () throws(SettingProblem) in try SocketMode.fromInteger(value, literal: literal) }
        default:
            throw wrongType("octal permission bits, like \"0660\"")
        }
    }

    // MARK: - Helpers

    private func string(expected: String) throws(ConfigurationError) -> String {
        switch raw {
        case .text(let s), .tomlString(let s): return s
        default: throw wrongType(expected)
        }
    }

    private func checking<T>(_ body: () throws(SettingProblem) -> T) throws(ConfigurationError) -> T {
        do throws(SettingProblem) { return try body() } catch { throw invalid(error.message) }
    }

    private func invalid(_ problem: String) -> ConfigurationError {
        .invalidValue(key, source: source, value: raw.display, problem: problem)
    }

    private func wrongType(_ expected: String) -> ConfigurationError {
        .wrongType(key, source: source, expected: expected, found: raw.kind)
    }

    private func rangeText(_ range: ClosedRange<Int>) -> String {
        range.upperBound == Int.max ? "give a whole number greater than \(range.lowerBound - 1)"
            : "give a whole number from \(range.lowerBound) to \(range.upperBound)"
    }

    /// Digits with at most one decimal point: what a person types for seconds (no sign, exponent, hex or "inf").
    private static func isPlainDecimal(_ s: String) -> Bool {
        let digits = s.filter { ("0"..."9").contains($0) }.count
        let dots = s.filter { $0 == "." }.count
        return digits > 0 && dots <= 1 && digits + dots == s.count
    }
}
