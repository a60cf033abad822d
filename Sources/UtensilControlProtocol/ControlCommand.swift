/// The name of a request on the wire (`"command"`), and the key its successful reply's
/// payload sits under.
public enum ControlCommand: String, Codable, Sendable, CaseIterable {
    case status
    case list
    case show
    case delete
    case rename
    case rejected
    case retry
    case check
    case events
    case categories
    case setCategory = "set-category"
    case trash
    case restore
    case rethumb
    case favorite
    case unfavorite
    case categoryRename = "category-rename"
    case categoryDelete = "category-delete"
    case backup

    /// The key of the payload in a successful reply (`{"v":1,"ok":true,KEY:…}`); `events`
    /// answers `subscribed` first, then sends each event under `ControlCommand.eventKey`.
    public var replyKey: String {
        switch self {
        case .status: "status"
        case .list: "list"
        case .show: "utensil"
        case .delete: "deleted"
        case .rename: "renamed"
        case .rejected: "rejected"
        case .retry: "retried"
        case .check: "check"
        case .events: "subscribed"
        case .categories: "categories"
        case .setCategory: "categorized"
        case .trash: "trash"
        case .restore: "restored"
        case .rethumb: "rethumb"
        case .favorite: "favorited"
        case .unfavorite: "unfavorited"
        case .categoryRename: "categoryRenamed"
        case .categoryDelete: "categoryDeleted"
        case .backup: "backup"
        }
    }

    /// The key of each event line that follows `events`' `subscribed` reply.
    public static let eventKey = "event"

    /// The key of each progress line a `backup` sends before its final `backup` reply.
    public static let backupProgressKey = "backupProgress"
}
