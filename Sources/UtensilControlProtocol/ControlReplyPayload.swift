import UtensilCore

/// What a successful reply carries for one command, written under the command's reply key
/// beside `"v"` and `"ok"` (`{"v":1,"ok":true,"list":{…}}`). Which command has which payload
/// type is fixed by `ControlCall`.
public protocol ControlReplyPayload: Sendable, Equatable {
    /// Reads the payload from under `key` (and what its command puts beside it).
    init(from container: KeyedDecodingContainer<WireKey>, key: WireKey) throws
    /// Writes the payload under `key` (and what its command puts beside it).
    func encode(to container: inout KeyedEncodingContainer<WireKey>, key: WireKey) throws
}

extension ControlReplyPayload where Self: Codable {
    public init(from container: KeyedDecodingContainer<WireKey>, key: WireKey) throws {
        self = try container.decode(Self.self, forKey: key)
    }

    public func encode(to container: inout KeyedEncodingContainer<WireKey>, key: WireKey) throws {
        try container.encode(self, forKey: key)
    }
}

/// A top-level key of a reply, named by its command (`ControlCommand.replyKey`).
public struct WireKey: CodingKey, Sendable, Equatable {
    public let stringValue: String
    public var intValue: Int? { nil }

    public init(_ name: String) { stringValue = name }
    public init?(stringValue: String) { self.init(stringValue) }
    public init?(intValue: Int) { nil }
}

extension StatusInfo: ControlReplyPayload {}
extension UtensilPage: ControlReplyPayload {}
extension UtensilInfo: ControlReplyPayload {}
extension CheckReport: ControlReplyPayload {}
extension EventInfo: ControlReplyPayload {}
extension CategoryChange: ControlReplyPayload {}
/// `rejected` (`[RejectedInfo]`), `categories` (`[CategoryInfo]`), `trash` (`[UtensilInfo]`).
extension Array: ControlReplyPayload where Element: ControlReplyElement {}

/// What an array payload holds.
public protocol ControlReplyElement: Codable, Sendable, Equatable {}
extension RejectedInfo: ControlReplyElement {}
extension CategoryInfo: ControlReplyElement {}
extension UtensilInfo: ControlReplyElement {}

/// `retry`'s payload: `"retried"`, the files moved back into the inbox (as paths relative to
/// it), and beside it, only when some could not be moved, `"notRetried"`: those, each with why.
public struct RetryOutcome: ControlReplyPayload {
    public var retried: [String]
    public var notRetried: [RetryFailure]

    public init(retried: [String], notRetried: [RetryFailure] = []) {
        self.retried = retried
        self.notRetried = notRetried
    }

    static let failuresKey = WireKey("notRetried")

    public init(from container: KeyedDecodingContainer<WireKey>, key: WireKey) throws {
        retried = try container.decode([String].self, forKey: key)
        notRetried = try container.decodeIfPresent([RetryFailure].self, forKey: Self.failuresKey) ?? []
    }

    public func encode(to container: inout KeyedEncodingContainer<WireKey>, key: WireKey) throws {
        try container.encode(retried, forKey: key)
        if !notRetried.isEmpty { try container.encode(notRetried, forKey: Self.failuresKey) }
    }
}

/// `rethumb`'s payload: how many thumbnails were queued for regeneration, which goes on in
/// the background.
public struct RethumbReport: Codable, ControlReplyPayload {
    public var queued: Int

    public init(queued: Int) {
        self.queued = queued
    }
}

/// `events`' first reply, `"subscribed": true`: events from now on follow, one line each.
public struct Subscription: ControlReplyPayload {
    public init() {}

    public init(from container: KeyedDecodingContainer<WireKey>, key: WireKey) throws {
        _ = try container.decode(Bool.self, forKey: key)
    }

    public func encode(to container: inout KeyedEncodingContainer<WireKey>, key: WireKey) throws {
        try container.encode(true, forKey: key)
    }
}
