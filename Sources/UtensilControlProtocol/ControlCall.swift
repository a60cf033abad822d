import Foundation
import UtensilCore

/// A request together with the type of its successful reply: `client.send(.show(id))`
/// returns a `UtensilInfo`, `client.send(.status)` a `StatusInfo`. Each constructor below
/// ties one `ControlRequest` case to its payload type; there is no other way to build one.
public struct ControlCall<Reply: ControlReplyPayload>: Sendable, Equatable {
    public let request: ControlRequest

    private init(_ request: ControlRequest) {
        self.request = request
    }

    /// The reply to this call, read from one line (with or without its line ending).
    public func decodeReply(_ line: some DataProtocol) throws -> Result<Reply, ControlError> {
        try LineFraming.decodeReply(Reply.self, key: request.command.replyKey, from: line)
    }
}

extension ControlCall where Reply == StatusInfo {
    public static var status: Self { Self(.status) }
}

extension ControlCall where Reply == UtensilPage {
    public static func list(_ options: ListOptions) -> Self { Self(.list(options)) }

    public static func list(
        search: String? = nil, sort: ListSort? = nil, limit: Int? = nil, after: String? = nil,
        category: String? = nil, addedBy: String? = nil, favorites: Bool = false
    ) -> Self {
        Self(.list(
            search: search, sort: sort, limit: limit, after: after, category: category, addedBy: addedBy,
            favorites: favorites))
    }
}

extension ControlCall where Reply == UtensilInfo {
    public static func show(_ idOrName: String, preview: Bool = false) -> Self { Self(.show(idOrName, preview: preview)) }
    /// The utensil in the trash, or as it was before it was deleted for good.
    public static func delete(_ id: String, now: Bool = false) -> Self { Self(.delete(id, now: now)) }
    public static func rename(_ id: String, to newName: String) -> Self { Self(.rename(id, to: newName)) }
    /// `category` nil takes the utensil out of any category.
    public static func setCategory(_ id: String, to category: String?) -> Self { Self(.setCategory(id, to: category)) }
    public static func restore(_ id: String, as newName: String? = nil) -> Self { Self(.restore(id, as: newName)) }
    /// The utensil, now a favorite of the calling user (`favorite` true).
    public static func favorite(_ id: String) -> Self { Self(.favorite(id)) }
    /// The utensil, no longer a favorite of the calling user (`favorite` false).
    public static func unfavorite(_ id: String) -> Self { Self(.unfavorite(id)) }
}

extension ControlCall where Reply == CategoryChange {
    /// Renames a category (merging into an existing one of that name).
    public static func categoryRename(_ category: String, to newName: String) -> Self { Self(.categoryRename(category, to: newName)) }
    /// Deletes a category: its utensils become uncategorised.
    public static func categoryDelete(_ category: String) -> Self { Self(.categoryDelete(category)) }
}

extension ControlCall where Reply == [RejectedInfo] {
    public static var rejected: Self { Self(.rejected) }
}

extension ControlCall where Reply == RetryOutcome {
    public static func retry(file: String) -> Self { Self(.retry(file: file)) }
    public static var retryAll: Self { Self(.retryAll) }
}

extension ControlCall where Reply == CheckReport {
    public static var check: Self { Self(.check) }
}

extension ControlCall where Reply == [CategoryInfo] {
    public static var categories: Self { Self(.categories) }
}

extension ControlCall where Reply == [UtensilInfo] {
    /// The utensils in the trash, each with `trashedAt` and `purgeAt`.
    public static var trash: Self { Self(.trash) }
}

extension ControlCall where Reply == RethumbReport {
    public static func rethumb(_ selection: RethumbSelection) -> Self { Self(.rethumb(selection)) }
}

extension ControlCall where Reply == Subscription {
    /// Answered by `subscribed`, then one `EventInfo` line per event (`LineFraming.decodeEvent`).
    public static var events: Self { Self(.events) }
}

extension ControlCall where Reply == BackupInfo {
    /// Answered by `backupProgress` lines (`LineFraming.decodeBackupLine`), then the summary.
    public static func backup(_ destination: BackupDestination) -> Self { Self(.backup(destination)) }
}
