/// One request line from a client: the command and exactly the arguments it takes.
///
/// This is the list of commands: each case here, its `ControlCommand` in `command` and in
/// `ControlCommand.allCases`. Everything else about a command — wire name, reply key and
/// type, who may give it, the JSON of its arguments — is in its file under `Commands/`.
/// Decoding fails with a `bad-request` `ControlError` naming what is missing or wrong. A
/// client sends a `ControlCall`, which also knows the reply's type.
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
    /// Every event from now on; with `since`, first those after that `seq` the catalog keeps.
    case events(since: Int64? = nil)
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
    /// The hosts sharing the catalog, from their heartbeats.
    case hosts
    /// The pairs of utensils whose photos look alike.
    case duplicates
    /// Two utensils by id, marked as not copies of each other.
    case notACopy(String, String)

    /// The command, as named on the wire.
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
        case .hosts: .hosts
        case .duplicates: .duplicates
        case .notACopy: .notACopy
        }
    }
}

extension ControlCommand: CaseIterable {
    /// Every command, in the order of `ControlRequest`'s cases.
    public static let allCases: [ControlCommand] = [
        .status, .list, .show, .delete, .rename, .rejected, .retry, .check, .events, .categories, .setCategory,
        .trash, .restore, .rethumb, .favorite, .unfavorite, .categoryRename, .categoryDelete, .backup, .hosts,
        .duplicates, .notACopy,
    ]
}
