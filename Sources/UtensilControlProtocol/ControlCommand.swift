/// One command of the protocol: its name on the wire (`"command"`), the key its successful
/// reply's payload sits under, who may give it, and how its arguments read and write.
///
/// Each command is defined once, in its own file under `Commands/` (`ControlCommand.show`,
/// with the `ControlCall` constructors that tie it to its reply type); `ControlRequest` lists
/// them. Two commands are equal when their wire names are.
public struct ControlCommand: Sendable, Hashable, RawRepresentable, Codable, CustomStringConvertible {
    /// The name on the wire (`"command":"show"`).
    public let rawValue: String
    /// The key of the payload in a successful reply (`{"v":1,"ok":true,KEY:…}`); `events`
    /// answers `subscribed` first, then sends each event under `ControlCommand.eventKey`.
    public let replyKey: String
    /// Who may give the command (`ChangePolicy` in the daemon decides by it).
    public let access: ControlAccess
    /// The request from the arguments of a line that names this command.
    let decode: @Sendable (RequestArguments) throws -> ControlRequest
    /// Writes the arguments of `request` (a request of this command).
    let encode: @Sendable (ControlRequest, inout RequestArgumentWriter) throws -> Void

    init(
        _ name: String, replyKey: String, access: ControlAccess,
        decode: @escaping @Sendable (RequestArguments) throws -> ControlRequest,
        encode: @escaping @Sendable (ControlRequest, inout RequestArgumentWriter) throws -> Void = { _, _ in }
    ) {
        rawValue = name
        self.replyKey = replyKey
        self.access = access
        self.decode = decode
        self.encode = encode
    }

    /// The command of that wire name, nil for an unknown one.
    public init?(rawValue: String) {
        guard let known = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = known
    }

    public init(from decoder: any Decoder) throws {
        let name = try decoder.singleValueContainer().decode(String.self)
        guard let known = Self(rawValue: name) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "Unknown command \(name)."))
        }
        self = known
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.rawValue == rhs.rawValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
    public var description: String { rawValue }

    /// The key of each event line that follows `events`' `subscribed` reply.
    public static let eventKey = "event"

    /// The key of each progress line a `backup` sends before its final `backup` reply.
    public static let backupProgressKey = "backupProgress"
}

/// Who may give a command.
public enum ControlAccess: Sendable, Equatable {
    /// Anyone who can connect, and every web visitor: it only reads.
    case reads
    /// Every peer (each has a user) and signed-in web users: it is about the caller's own marks.
    case personal
    /// Root, the daemon's user, the socket's group, signed-in web users: it changes utensils or files.
    case changes
    /// Only root and the daemon's own user: it writes where it is told, as the daemon.
    case administers
}
