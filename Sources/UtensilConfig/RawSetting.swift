/// One value as a layer gave it, before it is checked against its key.
enum RawSetting: Sendable, Equatable {
    /// A string from the environment or a flag: parsed according to the key's type.
    case text(String)
    case tomlString(String)
    /// `literal` is how the integer was written in the file, when known (only looked up for `socket_mode`).
    case tomlInteger(Int, literal: String?)
    case tomlFloat(Double)
    /// A TOML array whose elements are all strings.
    case tomlStrings([String])
    /// A TOML value no key accepts (boolean, array, table, date …), described as "a boolean" etc.
    case tomlOther(kind: String)

    /// The value as shown in error messages.
    var display: String {
        switch self {
        case .text(let s), .tomlString(let s): TOMLText.quoted(s)
        case .tomlInteger(let value, let literal): literal ?? String(value)
        case .tomlFloat(let value): TOMLText.float(value)
        case .tomlStrings(let list): WebHosts.rendered(list)
        case .tomlOther(let kind): kind
        }
    }

    /// The kind of value, for "expected …, found …".
    var kind: String {
        switch self {
        case .text, .tomlString: "a string"
        case .tomlInteger: "an integer"
        case .tomlFloat: "a floating-point number"
        case .tomlStrings: "an array"
        case .tomlOther(let kind): kind
        }
    }
}

/// What is wrong with a value, said without the key or source (``SettingParser`` adds those).
struct SettingProblem: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
