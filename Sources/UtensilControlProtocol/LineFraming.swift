import Foundation

/// Newline-delimited JSON: one value per line, no line breaks inside (JSON escapes them),
/// timestamps as `ControlTimestamp`, binary fields as base64, keys sorted.
public enum LineFraming {
    /// The encoder every message (and `utensilctl --json`) goes through.
    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(ControlTimestamp.string(from: date))
        }
        return encoder
    }

    /// The decoder for every message.
    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = ControlTimestamp.date(from: text) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "\"\(text)\" is not an ISO 8601 UTC timestamp.")
            }
            return date
        }
        return decoder
    }

    /// `value` as one JSON line, terminated by `"\n"`.
    public static func encode(_ value: some Encodable) throws -> Data {
        var line = try makeEncoder().encode(value)
        line.append(UInt8(ascii: "\n"))
        return line
    }

    /// `value` as one line of JSON text without its `"\n"`, or nil when it cannot be encoded.
    public static func text(_ value: some Encodable) -> String? {
        (try? encode(value)).map { String(decoding: $0.dropLast(), as: UTF8.self) }
    }

    /// `reply` as one line of text without its `"\n"` (what the server writes).
    public static func line(_ reply: ControlReply) -> String {
        text(reply) ?? #"{"error":{"code":"internal","message":"The reply could not be encoded."},"ok":false,"v":1}"#
    }

    /// Decodes one line (with or without its `"\n"` or `"\r\n"`).
    public static func decode<Value: Decodable>(_ type: Value.Type, from line: some DataProtocol) throws -> Value {
        try makeDecoder().decode(type, from: withoutLineEnding(line))
    }

    private static func withoutLineEnding(_ line: some DataProtocol) -> Data {
        var bytes = Data(line)
        while let last = bytes.last, last == UInt8(ascii: "\n") || last == UInt8(ascii: "\r") {
            bytes.removeLast()
        }
        return bytes
    }

    /// The server's way in: one request line, checked for its version, its JSON and the
    /// arguments its command takes. Throws the error to send back (`unsupported-version` or `bad-request`).
    public static func decodeRequest(_ line: some DataProtocol) throws(ControlError) -> ControlRequest {
        let probe: VersionProbe
        do {
            probe = try decode(VersionProbe.self, from: line)
        } catch {
            throw ControlError(.badRequest, "The request is not a JSON object; send one object per line.")
        }
        guard let version = probe.v else {
            throw ControlError(.badRequest, "The request has no \"v\"; send \"v\": \(ControlProtocol.version).")
        }
        guard version == ControlProtocol.version else {
            throw ControlError(
                .unsupportedVersion,
                "This daemon speaks protocol version \(ControlProtocol.version), not \(version).")
        }
        if let command = probe.command, ControlCommand(rawValue: command) == nil {
            let known = ControlCommand.allCases.map(\.rawValue).joined(separator: ", ")
            throw ControlError(.badRequest, "Unknown command \"\(command)\"; known commands: \(known).")
        }
        do {
            return try decode(ControlRequest.self, from: line)
        } catch let error as ControlError {
            throw error
        } catch {
            throw ControlError(.badRequest, "The request is malformed: \(Self.describe(error))")
        }
    }

    /// A client's way in: one reply line, its payload read as `type` from under `key`.
    /// Throws when the line is not such a reply; an error reply is a `.failure`.
    static func decodeReply<Payload: ControlReplyPayload>(
        _ type: Payload.Type, key: String, from line: some DataProtocol
    ) throws -> Result<Payload, ControlError> {
        let decoder = makeDecoder()
        decoder.userInfo[TypedReply<Payload>.keyInfo] = key
        return try decoder.decode(TypedReply<Payload>.self, from: withoutLineEnding(line)).result
    }

    /// One line of the stream that follows `events`' `subscribed` reply.
    public static func decodeEvent(_ line: some DataProtocol) throws -> Result<EventInfo, ControlError> {
        try decodeReply(EventInfo.self, key: ControlCommand.eventKey, from: line)
    }

    /// Just enough of a request to answer version and command mistakes precisely.
    private struct VersionProbe: Decodable {
        var v: Int?
        var command: String?

        enum CodingKeys: String, CodingKey { case v, command }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            v = try? container.decodeIfPresent(Int.self, forKey: .v)
            command = try? container.decodeIfPresent(String.self, forKey: .command)
        }
    }

    /// A one-sentence account of a decoding failure, naming the field.
    public static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)." }
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map(\.stringValue).filter { !$0.isEmpty }
            return keys.isEmpty ? "the object" : "\"\(keys.joined(separator: "."))\""
        }
        switch error {
        case .keyNotFound(let key, let context):
            let parent = path(context)
            return "\"\(key.stringValue)\" is missing" + (parent == "the object" ? "." : " in \(parent).")
        case .typeMismatch(let type, let context):
            return "\(path(context)) should be \(Self.jsonTypeName(type))."
        case .valueNotFound(let type, let context):
            return "\(path(context)) should be \(Self.jsonTypeName(type)), not null."
        case .dataCorrupted(let context):
            return "\(path(context)) is invalid."
        @unknown default:
            return "it could not be decoded."
        }
    }

    private static func jsonTypeName(_ type: Any.Type) -> String {
        switch type {
        case is Bool.Type: "true or false"
        case is Int.Type: "an integer"
        case is String.Type: "a string"
        default: "of another type"
        }
    }
}
