import Foundation
import UtensilCore

/// One live event of `events`: a drop became a utensil, or was rejected, or a `rethumb` run
/// started, went on or finished, or a category was renamed or deleted.
public struct EventInfo: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable, CaseIterable {
        case ingested
        case rejected
        case rethumb
        /// A category was renamed (or merged) or deleted.
        case category
    }

    public var kind: Kind
    public var at: Date
    /// Where the drop was, relative to the inbox (`""` for `rethumb`).
    public var inboxFile: String
    /// `ingested` only: the new utensil.
    public var utensil: UtensilInfo?
    /// `rejected` only: the rejection reason, e.g. `corrupt-image`.
    public var reason: String?
    /// `rejected` only: one sentence a person understands.
    public var message: String?
    /// `rethumb` only: the run as it is now.
    public var rethumb: RethumbInfo?
    /// `category` only: what changed.
    public var categoryChange: CategoryChange?
    /// The `host_name` of the host where it happened. Every event a daemon sends carries it;
    /// with several hosts sharing a catalog, `events` shows every host's events.
    public var host: String?
    /// Its number in the catalog's event log: it only grows across the whole catalog (every
    /// host's events), so a follower that was away resumes after the last it saw
    /// (`events --since`, the gallery's `Last-Event-ID`). Nil only for an event from a host
    /// whose utensild does not number events yet, or one the catalog could not record.
    public var seq: Int64?

    public init(
        kind: Kind, at: Date, inboxFile: String, utensil: UtensilInfo? = nil, reason: String? = nil,
        message: String? = nil, rethumb: RethumbInfo? = nil, categoryChange: CategoryChange? = nil, host: String? = nil
    ) {
        self.kind = kind
        self.at = at
        self.inboxFile = inboxFile
        self.utensil = utensil
        self.reason = reason
        self.message = message
        self.rethumb = rethumb
        self.categoryChange = categoryChange
        self.host = host
    }

    public static func category(_ change: CategoryChange, at: Date) -> EventInfo {
        EventInfo(kind: .category, at: at, inboxFile: "", categoryChange: change)
    }

    public static func rethumb(_ run: RethumbInfo, at: Date) -> EventInfo {
        EventInfo(kind: .rethumb, at: at, inboxFile: "", rethumb: run)
    }

    public static func ingested(_ utensil: UtensilInfo, inboxFile: String, at: Date) -> EventInfo {
        EventInfo(kind: .ingested, at: at, inboxFile: inboxFile, utensil: utensil)
    }

    public static func rejected(inboxFile: String, reason: String, message: String, at: Date) -> EventInfo {
        EventInfo(kind: .rejected, at: at, inboxFile: inboxFile, reason: reason, message: message)
    }
}
