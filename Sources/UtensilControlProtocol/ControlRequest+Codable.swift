/// The wire form: `"v"`, `"command"` and the command's own keys, read and written by the
/// command's definition (`ControlCommand.decode`/`encode`, in `Commands/`); keys a command
/// does not take are ignored when decoding and never written. A missing or unusable argument
/// is a `bad-request` `ControlError` that names the key; a value of the wrong JSON type is a
/// `DecodingError` (which `LineFraming.decodeRequest` words as a `bad-request` naming the key).
extension ControlRequest: Codable {
    public init(from decoder: any Decoder) throws {
        let arguments = try RequestArguments(decoder)
        self = try arguments.command.decode(arguments)
    }

    public func encode(to encoder: any Encoder) throws {
        var writer = RequestArgumentWriter(container: encoder.container(keyedBy: ArgumentKey.self))
        try writer.container.encode(ControlProtocol.version, forKey: "v")
        try writer.container.encode(command, forKey: "command")
        try command.encode(self, &writer)
    }
}

/// A key of a request line (`"target"`, `"newName"` …), written as a string literal.
struct ArgumentKey: CodingKey, ExpressibleByStringLiteral {
    let stringValue: String
    var intValue: Int? { nil }

    init(stringLiteral name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// The keyed container of one request, read for the command it names.
struct RequestArguments {
    let container: KeyedDecodingContainer<ArgumentKey>
    let command: ControlCommand

    init(_ decoder: any Decoder) throws {
        container = try decoder.container(keyedBy: ArgumentKey.self)
        _ = try container.decode(Int.self, forKey: "v")
        command = try container.decode(ControlCommand.self, forKey: "command")
    }

    func optional<Value: Decodable>(_ key: ArgumentKey, as type: Value.Type = String.self) throws -> Value? {
        try container.decodeIfPresent(type, forKey: key)
    }

    /// A string the command cannot do without; absent or empty is a `bad-request`.
    func required(_ key: ArgumentKey, _ what: String) throws -> String {
        guard let value = try optional(key), !value.isEmpty else {
            throw ControlError(.badRequest, "The \(command.rawValue) command needs \"\(key.stringValue)\": \(what).")
        }
        return value
    }

    /// A boolean switch, `false` when absent.
    func flag(_ key: ArgumentKey) throws -> Bool {
        try optional(key, as: Bool.self) ?? false
    }
}

/// The keyed container a request's arguments are written into.
struct RequestArgumentWriter {
    var container: KeyedEncodingContainer<ArgumentKey>

    mutating func write(_ value: some Encodable, _ key: ArgumentKey) throws {
        try container.encode(value, forKey: key)
    }

    /// Left out when nil.
    mutating func writeIfPresent(_ value: (some Encodable)?, _ key: ArgumentKey) throws {
        try container.encodeIfPresent(value, forKey: key)
    }

    /// A boolean switch: `true` when set, left out otherwise.
    mutating func flag(_ set: Bool, _ key: ArgumentKey) throws {
        if set { try container.encode(true, forKey: key) }
    }
}
