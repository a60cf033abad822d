import UtensilControlProtocol
import UtensilCore

/// The query of `GET /api/v1/utensils` and of the gallery page, checked before it reaches
/// the catalog: `search`, `category`, `sort` (`name`, `created`, `-created`), `limit` (1 to
/// 500, default 50), `after` (a cursor from an earlier page's `next`), `favorites` (`1` or
/// `true`: only the signed-in user's favorites) and, for the gallery's links, `prior`.
struct ListQuery: Sendable, Equatable {
    /// The search is bounded in code points, as the OpenAPI document's `maxLength` counts them
    /// (JSON Schema's rule), before white space is trimmed: a character may hold any number of
    /// code points, so one 2,001-code-point "character" is refused like 201 letters.
    static let maximumSearchCodePoints = 200
    static let maximumLimit = 500
    static let maximumCursorBytes = 512

    var search: String?
    var category: String?
    var sort: ListSort?
    var limit: Int
    var after: String?
    /// The cursor of the page before this one (its `after`; absent when that is the first
    /// page), carried by the gallery's links so that the first utensil of a later page finds
    /// its previous (``ListNeighbours``). The list itself ignores it.
    var prior: String?
    var favorites = false

    init(search: String? = nil, sort: ListSort? = nil, limit: Int = 50, after: String? = nil) {
        self.search = search
        self.sort = sort
        self.limit = limit
        self.after = after
    }

    init(query: String?) throws(WebProblem) {
        guard let items = QueryItems(query) else {
            throw .badRequest("The query string is not valid percent-encoded UTF-8; encode it as a browser does.")
        }
        let rawSearch = items["search"]
        if let rawSearch, rawSearch.unicodeScalars.count > Self.maximumSearchCodePoints {
            throw .badRequest(
                "The search text is longer than \(Self.maximumSearchCodePoints) code points (a letter and a combining accent are two); search for a shorter part of the name.")
        }
        let search = rawSearch?.trimmingCharacters(in: .whitespaces)
        self.search = search?.isEmpty == false ? search : nil
        if let category = items["category"], !category.isEmpty {
            guard category.count <= 100 else {
                throw .badRequest("A category name has at most 100 characters; GET /api/v1/categories lists them.")
            }
            self.category = category
        }
        // An empty `sort`, `limit` or `favorites` is refused like any other value not documented
        // (the gallery's own forms and links never send one).
        if let text = items["sort"] {
            guard let sort = ListSort(rawValue: text) else {
                let choices = ListSort.allCases.map(\.rawValue).joined(separator: ", ")
                throw .badRequest("The sort must be one of \(choices).")
            }
            self.sort = sort
        }
        limit = 50
        if let text = items["limit"] {
            guard let limit = Int(text), (1...Self.maximumLimit).contains(limit) else {
                throw .badRequest("The limit must be a whole number from 1 to \(Self.maximumLimit).")
            }
            self.limit = limit
        }
        if let favorites = items["favorites"] {
            guard ["1", "true", "0", "false"].contains(favorites) else {
                throw .badRequest("favorites must be 1 (or true) for only your favorites, or 0.")
            }
            self.favorites = favorites == "1" || favorites == "true"
        }
        if let after = items["after"], !after.isEmpty {
            guard after.utf8.count <= Self.maximumCursorBytes else {
                throw .badRequest("That cursor was not handed out by this daemon; start again from the first page.")
            }
            self.after = after
        }
        if let prior = items["prior"], !prior.isEmpty {
            guard prior.utf8.count <= Self.maximumCursorBytes else {
                throw .badRequest("That cursor was not handed out by this daemon; start again from the first page.")
            }
            self.prior = prior
        }
    }

    var call: ControlCall<UtensilPage> {
        .list(search: search, sort: sort, limit: limit, after: after, category: category, favorites: favorites)
    }
}
