import Foundation

/// One live event of `events`: a drop became a utensil, or was rejected.
public struct EventInfo: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable, CaseIterable {
        case ingested
        case rejected
    }

    public var kind: Kind
    public var at: Date
    /// Where the drop was, relative to the inbox.
    public var inboxFile: String
    /// `ingested` only: the new utensil.
    public var utensil: UtensilInfo?
    /// `rejected` only: the rejection reason, e.g. `corrupt-image`.
    public var reason: String?
    /// `rejected` only: one sentence a person understands.
    public var message: String?

    public init(
        kind: Kind, at: Date, inboxFile: String, utensil: UtensilInfo? = nil, reason: String? = nil,
        message: String? = nil
    ) {
        self.kind = kind
        self.at = at
        self.inboxFile = inboxFile
        self.utensil = utensil
        self.reason = reason
        self.message = message
    }

    public static func ingested(_ utensil: UtensilInfo, inboxFile: String, at: Date) -> EventInfo {
        EventInfo(kind: .ingested, at: at, inboxFile: inboxFile, utensil: utensil)
    }

    public static func rejected(inboxFile: String, reason: String, message: String, at: Date) -> EventInfo {
        EventInfo(kind: .rejected, at: at, inboxFile: inboxFile, reason: reason, message: message)
    }
}
