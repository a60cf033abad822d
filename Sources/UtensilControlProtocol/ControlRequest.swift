/// One request line from a client.
///
/// Only the arguments that matter to `command` are set; the rest are `nil` (or `false`)
/// and are left out of the JSON. Build one with the static constructors, e.g.
/// `ControlRequest.list(search: "spoon")`.
public struct ControlRequest: Sendable, Equatable {
    /// The protocol version the client speaks (`"v"`).
    public var version: Int
    public var command: ControlCommand
    /// `list`: names containing this, case- and accent-insensitively.
    public var search: String?
    /// `list`: the order; the server's default is `.newestFirst`.
    public var sort: ListSort?
    /// `list`: at most this many utensils in one page.
    public var limit: Int?
    /// `list`: the opaque cursor from a previous page's `next`.
    public var after: String?
    /// `show`, `delete`, `rename`, `set-category`, `restore`: a utensil id, or (for `show`) a name.
    public var target: String?
    /// `rename`, `restore --as`: the new name, validated like a drop's.
    public var newName: String?
    /// `retry`: a file name in `rejected/`.
    public var file: String?
    /// `retry --all`: every rejected file.
    public var all: Bool
    /// `show --preview`: include `thumbnailJPEG` and the raw RGB preview in the reply.
    public var preview: Bool
    /// `list`: only this category (case-insensitively); `set-category`: the new category.
    public var category: String?
    /// `list`: only utensils added by this user (a user name, or a numeric uid).
    public var addedBy: String?
    /// `set-category`: `true` takes the utensil out of any category (instead of `category`).
    public var none: Bool
    /// `delete --now`: remove the row and both files at once instead of moving it to the trash.
    public var now: Bool
    /// `rethumb --missing`: only the utensils whose thumbnail file is missing.
    public var missing: Bool
    /// `rethumb ID…`: these utensils (with `all` false and `missing` false).
    public var ids: [String]?

    public init(
        command: ControlCommand, search: String? = nil, sort: ListSort? = nil, limit: Int? = nil,
        after: String? = nil, target: String? = nil, newName: String? = nil, file: String? = nil,
        all: Bool = false, preview: Bool = false, category: String? = nil, addedBy: String? = nil,
        none: Bool = false, now: Bool = false, missing: Bool = false, ids: [String]? = nil,
        version: Int = ControlProtocol.version
    ) {
        self.version = version
        self.command = command
        self.search = search
        self.sort = sort
        self.limit = limit
        self.after = after
        self.target = target
        self.newName = newName
        self.file = file
        self.all = all
        self.preview = preview
        self.category = category
        self.addedBy = addedBy
        self.none = none
        self.now = now
        self.missing = missing
        self.ids = ids
    }
}

extension ControlRequest {
    public static var status: ControlRequest { ControlRequest(command: .status) }

    public static func list(
        search: String? = nil, sort: ListSort? = nil, limit: Int? = nil, after: String? = nil,
        category: String? = nil, addedBy: String? = nil
    ) -> ControlRequest {
        ControlRequest(
            command: .list, search: search, sort: sort, limit: limit, after: after, category: category,
            addedBy: addedBy)
    }

    public static var categories: ControlRequest { ControlRequest(command: .categories) }

    /// `set-category`: `category` nil takes the utensil out of any category.
    public static func setCategory(_ id: String, to category: String?) -> ControlRequest {
        ControlRequest(command: .setCategory, target: id, category: category, none: category == nil)
    }

    public static func show(_ idOrName: String, preview: Bool = false) -> ControlRequest {
        ControlRequest(command: .show, target: idOrName, preview: preview)
    }

    /// `delete`: to the trash, or with `now` for good.
    public static func delete(_ id: String, now: Bool = false) -> ControlRequest {
        ControlRequest(command: .delete, target: id, now: now)
    }

    public static var trash: ControlRequest { ControlRequest(command: .trash) }

    /// `restore`: back from the trash, under `newName` if given.
    public static func restore(_ id: String, as newName: String? = nil) -> ControlRequest {
        ControlRequest(command: .restore, target: id, newName: newName)
    }

    public static func rename(_ id: String, to newName: String) -> ControlRequest {
        ControlRequest(command: .rename, target: id, newName: newName)
    }

    public static var rejected: ControlRequest { ControlRequest(command: .rejected) }

    public static func retry(file: String) -> ControlRequest {
        ControlRequest(command: .retry, file: file)
    }

    public static var retryAll: ControlRequest { ControlRequest(command: .retry, all: true) }

    public static var check: ControlRequest { ControlRequest(command: .check) }

    public static var events: ControlRequest { ControlRequest(command: .events) }

    /// `rethumb --all`, `--missing` or `ID…`.
    public static func rethumb(_ selection: RethumbInfo.Selection, ids: [String] = []) -> ControlRequest {
        ControlRequest(
            command: .rethumb, all: selection == .all, missing: selection == .missing,
            ids: selection == .ids ? ids : nil)
    }
}
