import Foundation

/// One reply line as the server sends it: `{"v":1,"ok":true,<reply key>:…}` on success,
/// `{"v":1,"ok":false,"error":{"code":…,"message":…}}` on failure. A client reads it back
/// typed, through the `ControlCall` it sent.
public struct ControlReply: Sendable, Encodable {
    private enum Outcome: Sendable {
        case success(key: String, payload: any ControlReplyPayload)
        case failure(ControlError)
    }

    private let outcome: Outcome

    /// The reply to a `command` request that succeeded with `payload`.
    public static func success(_ payload: some ControlReplyPayload, for command: ControlCommand) -> ControlReply {
        ControlReply(outcome: .success(key: command.replyKey, payload: payload))
    }

    /// A success under `key` (for lines of a stream that are not the command's final reply).
    static func success(_ payload: some ControlReplyPayload, key: String) -> ControlReply {
        ControlReply(outcome: .success(key: key, payload: payload))
    }

    /// One line of the stream that follows `events`' `subscribed` reply.
    public static func event(_ event: EventInfo) -> ControlReply {
        ControlReply(outcome: .success(key: ControlCommand.eventKey, payload: event))
    }

    public static func failure(_ error: ControlError) -> ControlReply {
        ControlReply(outcome: .failure(error))
    }

    public static func failure(_ code: ControlErrorCode, _ message: String) -> ControlReply {
        .failure(ControlError(code, message))
    }

    /// `"ok"` on the wire.
    public var ok: Bool {
        if case .success = outcome { true } else { false }
    }

    /// The error of a failed reply.
    public var error: ControlError? {
        if case .failure(let error) = outcome { error } else { nil }
    }

    /// The payload as the type the request's `ControlCall` promises, or the reply's error; a
    /// payload of another type is an `internal` error (the server broke its own protocol).
    public func result<Payload: ControlReplyPayload>(as type: Payload.Type) -> Result<Payload, ControlError> {
        switch outcome {
        case .failure(let error):
            return .failure(error)
        case .success(let key, let payload):
            guard let payload = payload as? Payload else {
                return .failure(ControlError(.internal, "utensild answered \"\(key)\" with an unexpected payload."))
            }
            return .success(payload)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: WireKey.self)
        try container.encode(ControlProtocol.version, forKey: Self.versionKey)
        try container.encode(ok, forKey: Self.okKey)
        switch outcome {
        case .success(let key, let payload): try payload.encode(to: &container, key: WireKey(key))
        case .failure(let error): try container.encode(error, forKey: Self.errorKey)
        }
    }

    static let versionKey = WireKey("v")
    static let okKey = WireKey("ok")
    static let errorKey = WireKey("error")
}

/// A reply line read back as the payload type its request expects.
struct TypedReply<Payload: ControlReplyPayload>: Decodable {
    static var keyInfo: CodingUserInfoKey { CodingUserInfoKey(rawValue: "utensild.replyKey")! }

    let result: Result<Payload, ControlError>

    init(from decoder: any Decoder) throws {
        guard let key = decoder.userInfo[Self.keyInfo] as? String else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "No reply key was given."))
        }
        let container = try decoder.container(keyedBy: WireKey.self)
        _ = try container.decode(Int.self, forKey: ControlReply.versionKey)
        if try container.decode(Bool.self, forKey: ControlReply.okKey) {
            result = .success(try Payload(from: container, key: WireKey(key)))
        } else {
            result = .failure(try container.decode(ControlError.self, forKey: ControlReply.errorKey))
        }
    }
}
