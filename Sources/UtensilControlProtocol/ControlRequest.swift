import UtensilCore

/// One request line from a client: the command and exactly the arguments it takes.
///
/// The wire form (`{"v":1,"command":"show","target":"Spoon"}`) is in
/// `ControlRequest+Codable.swift`; decoding fails with a `bad-request` `ControlError` naming
/// what is missing or wrong. A client sends a `ControlCall`, which also knows the reply's type.
public enum ControlRequest: Sendable, Equatable {
    case status
    case list(ListOptions)
    /// A utensil by id or name; `preview` adds the thumbnail and a raw RGB preview.
    case show(String, preview: Bool = false)
    /// A utensil by id: to the trash, or with `now` for good.
    case delete(String, now: Bool = false)
    /// A utensil by id, and its new name (validated like a drop's).
    case rename(String, to: String)
    case rejected
    /// A file name in `rejected/`, as `rejected` gives it.
    case retry(file: String)
    /// Every rejected file.
    case retryAll
    case check
    case events
    case categories
    /// A utensil by id, and its new category; `nil` takes it out of any.
    case setCategory(String, to: String?)
    case trash
    /// A utensil by id, back from the trash, under a new name when given.
    case restore(String, as: String? = nil)
    /// Regenerate thumbnails from originals, in the background.
    case rethumb(RethumbSelection)
    /// A utensil by id, marked as a favorite of the calling user.
    case favorite(String)
    /// A utensil by id, no longer a favorite of the calling user.
    case unfavorite(String)
    /// A category by name (any letter case), and its new name (validated like `set-category`'s);
    /// into an existing category, merges.
    case categoryRename(String, to: String)
    /// A category by name: its utensils become uncategorised.
    case categoryDelete(String)
    /// A consistent copy of the catalog and the files into a new folder; answered by progress
    /// lines, then the summary.
    case backup(BackupDestination)

    /// The command's name on the wire.
    public var command: ControlCommand {
        switch self {
        case .status: .status
        case .list: .list
        case .show: .show
        case .delete: .delete
        case .rename: .rename
        case .rejected: .rejected
        case .retry, .retryAll: .retry
        case .check: .check
        case .events: .events
        case .categories: .categories
        case .setCategory: .setCategory
        case .trash: .trash
        case .restore: .restore
        case .rethumb: .rethumb
        case .favorite: .favorite
        case .unfavorite: .unfavorite
        case .categoryRename: .categoryRename
        case .categoryDelete: .categoryDelete
        case .backup: .backup
        }
    }

    /// `list` with the given filters; unset ones are left out of the JSON.
    public static func list(
        search: String? = nil, sort: ListSort? = nil, limit: Int? = nil, after: String? = nil,
        category: String? = nil, addedBy: String? = nil, favorites: Bool = false
    ) -> ControlRequest {
        .list(ListOptions(
            search: search, sort: sort, limit: limit, after: after, category: category, addedBy: addedBy, favorites: favorites))
    }
}

/// Which thumbnails `rethumb` regenerates.
public enum RethumbSelection: Sendable, Equatable {
    /// Every utensil's (`"all": true`).
    case all
    /// Those whose thumbnail file is missing (`"missing": true`).
    case missing
    /// These utensils', by id (`"targets": [ID, …]`).
    case utensils([String])
}

/// The arguments of `list`, each optional.
public struct ListOptions: Sendable, Equatable {
    /// Names containing this, case- and accent-insensitively.
    public var search: String?
    /// The order; the server's default is `.newestFirst`.
    public var sort: ListSort?
    /// At most this many utensils in one page (at least 1).
    public var limit: Int?
    /// The opaque cursor from a previous page's `next`.
    public var after: String?
    /// Only this category (case-insensitively).
    public var category: String?
    /// Only utensils added by this user (a user name, or a numeric uid).
    public var addedBy: String?
    /// Only the calling user's favorites.
    public var favorites: Bool

    public init(
        search: String? = nil, sort: ListSort? = nil, limit: Int? = nil, after: String? = nil,
        category: String? = nil, addedBy: String? = nil, favorites: Bool = false
    ) {
        self.search = search
        self.sort = sort
        self.limit = limit
        self.after = after
        self.category = category
        self.addedBy = addedBy
        self.favorites = favorites
    }
}
