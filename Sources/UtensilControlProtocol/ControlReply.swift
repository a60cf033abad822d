/// One reply line from the server: `{"v":1,"ok":true,<payload key>:…}` on success,
/// `{"v":1,"ok":false,"error":{"code":…,"message":…}}` on failure.
public struct ControlReply: Sendable, Equatable {
    /// The protocol version the server speaks (`"v"`).
    public var version: Int
    public var result: Result<ControlPayload, ControlError>

    public init(_ result: Result<ControlPayload, ControlError>, version: Int = ControlProtocol.version) {
        self.version = version
        self.result = result
    }

    public static func success(_ payload: ControlPayload) -> ControlReply {
        ControlReply(.success(payload))
    }

    public static func failure(_ error: ControlError) -> ControlReply {
        ControlReply(.failure(error))
    }

    public static func failure(_ code: ControlErrorCode, _ message: String) -> ControlReply {
        ControlReply(.failure(ControlError(code, message)))
    }

    /// `"ok"` on the wire.
    public var ok: Bool {
        if case .success = result { true } else { false }
    }
}

extension ControlReply: Codable {
    enum CodingKeys: String, CodingKey {
        case version = "v"
        case ok, error
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decode(Int.self, forKey: .version)
        if try container.decode(Bool.self, forKey: .ok) {
            result = .success(try ControlPayload(
                from: decoder.container(keyedBy: ControlPayload.Key.self),
                companions: decoder.container(keyedBy: ControlPayload.CompanionKey.self)))
        } else {
            result = .failure(try container.decode(ControlError.self, forKey: .error))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(version, forKey: .version)
        try container.encode(ok, forKey: .ok)
        switch result {
        case .success(let payload):
            var payloadContainer = encoder.container(keyedBy: ControlPayload.Key.self)
            try payload.encode(into: &payloadContainer)
            var companions = encoder.container(keyedBy: ControlPayload.CompanionKey.self)
            try payload.encodeCompanions(into: &companions)
        case .failure(let error):
            try container.encode(error, forKey: .error)
        }
    }
}
