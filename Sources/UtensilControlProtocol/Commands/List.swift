import UtensilCore

extension ControlCommand {
    /// `list`: one page of utensils, filtered and sorted; unset filters are left out of the JSON.
    public static let list = ControlCommand(
        "list", replyKey: "list", access: .reads,
        decode: { arguments in
            let options = ListOptions(
                search: try arguments.optional("search"), sort: try arguments.optional("sort", as: ListSort.self),
                limit: try arguments.optional("limit", as: Int.self), after: try arguments.optional("after"),
                category: try arguments.optional("category"), addedBy: try arguments.optional("addedBy"),
                favorites: try arguments.flag("favorites"))
            if let limit = options.limit, limit < 1 {
                throw ControlError(.badRequest, "The list limit must be at least 1, not \(limit).")
            }
            return .list(options)
        },
        encode: { request, arguments in
            guard case .list(let options) = request else { return }
            try arguments.writeIfPresent(options.search, "search")
            try arguments.writeIfPresent(options.sort, "sort")
            try arguments.writeIfPresent(options.limit, "limit")
            try arguments.writeIfPresent(options.after, "after")
            try arguments.writeIfPresent(options.category, "category")
            try arguments.writeIfPresent(options.addedBy, "addedBy")
            try arguments.flag(options.favorites, "favorites")
        })
}

extension ControlRequest {
    /// `list` with the given filters; unset ones are left out of the JSON.
    public static func list(
        search: String? = nil, sort: ListSort? = nil, limit: Int? = nil, after: String? = nil,
        category: String? = nil, addedBy: String? = nil, favorites: Bool = false
    ) -> ControlRequest {
        .list(ListOptions(
            search: search, sort: sort, limit: limit, after: after, category: category, addedBy: addedBy, favorites: favorites))
    }
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
