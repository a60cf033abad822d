internal import TOMLKit

/// The settings of a TOML document: the only code that touches TOMLKit.
enum TOMLSettings {
    /// Every top-level key of `text` as a ``ConfigKey`` with its raw value, sorted by key name.
    /// Unknown keys (including tables such as `[server]`) are errors naming the key and file.
    static func parse(_ text: String, path: String) throws(ConfigurationError) -> [(ConfigKey, RawSetting)] {
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw .syntaxError(path: path, line: error.source.begin.line, column: error.source.begin.column,
                               message: error.description)
        } catch {
            throw .syntaxError(path: path, line: 0, column: 0, message: "\(error)")
        }
        let source = ConfigurationSource.file(path: path)
        var settings: [(ConfigKey, RawSetting)] = []
        for name in table.keys.sorted() {
            guard let key = ConfigKey(rawValue: name) else {
                throw .unknownKey(name, source: source, suggestion: KeySuggestion.forFileKey(name).map(TOMLText.quoted))
            }
            guard let value = table[name] else { continue }
            settings.append((key, raw(value, key: key, text: text)))
        }
        return settings
    }

    /// The elements of `array` when every one is a string.
    private static func strings(_ array: TOMLArray?) -> [String]? {
        guard let array else { return nil }
        var strings: [String] = []
        for element in array {
            guard let string = element.string else { return nil }
            strings.append(string)
        }
        return strings
    }

    private static func raw(_ value: any TOMLValueConvertible, key: ConfigKey, text: String) -> RawSetting {
        switch value.type {
        case .string: .tomlString(value.string ?? "")
        case .int:
            .tomlInteger(value.int ?? 0, literal: key == .socketMode ? SocketMode.integerLiteral(in: text, value: value.int ?? 0) : nil)
        case .double: .tomlFloat(value.double ?? .nan)
        case .bool: .tomlOther(kind: "a boolean")
        case .array: strings(value.array).map(RawSetting.tomlStrings) ?? .tomlOther(kind: "an array")
        case .table: .tomlOther(kind: "a table")
        case .date: .tomlOther(kind: "a date")
        case .time: .tomlOther(kind: "a time")
        case .dateTime: .tomlOther(kind: "a date-time")
        }
    }
}
