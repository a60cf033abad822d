/// An optional field that is always written, as JSON `null` when nil (synthesized `Codable`
/// leaves a nil out), so that a client can tell "none" from "not sent by an older daemon";
/// read back as nil whether it is `null` or missing.
@propertyWrapper
public struct WrittenAsNull<Value: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
    public var wrappedValue: Value?

    public init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decode(Value.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}

extension KeyedDecodingContainer {
    /// A ``WrittenAsNull`` field whose key is missing (a reply from an older daemon) is nil.
    public func decode<Value>(_ type: WrittenAsNull<Value>.Type, forKey key: Key) throws -> WrittenAsNull<Value> {
        try decodeIfPresent(type, forKey: key) ?? WrittenAsNull(wrappedValue: nil)
    }
}
