import UtensilControlProtocol

/// How many utensils a gallery list holds, said above its grid: the catalog's own counts for
/// the whole gallery (`status`) and for a category (`categories`); for a search or the
/// favorites, counted page by page up to ``cap`` ("more than 5,000").
struct ListTotal: Sendable, Equatable {
    /// Counting a search stops here: 10 pages of 500, a few milliseconds each.
    static let cap = 5000

    var count: Int
    /// The count stopped at ``cap``: there are more.
    var isAtLeast = false

    /// `list`'s total as `user` sees it, or nil when the catalog does not answer.
    static func find(_ list: ListQuery, user: String?, backend: any GalleryBackend) async -> ListTotal? {
        if list.search == nil && !list.favorites {
            if let category = list.category {
                guard case .success(let categories) = await backend.answer(.categories, webUser: nil) else { return nil }
                return ListTotal(count: categories.first { $0.name.lowercased() == category.lowercased() }?.count ?? 0)
            }
            guard case .success(let status) = await backend.answer(.status, webUser: nil) else { return nil }
            return ListTotal(count: status.utensils)
        }
        var walk = list
        walk.limit = ListQuery.maximumLimit
        walk.after = nil
        var count = 0
        while true {
            guard case .success(let page) = await backend.answer(walk.call, webUser: user) else { return nil }
            count += page.utensils.count
            guard let next = page.next else { return ListTotal(count: count) }
            if count >= cap { return ListTotal(count: count, isAtLeast: true) }
            walk.after = next
        }
    }

    /// `31 utensils`, `1 utensil`, `more than 5,000 utensils`.
    var text: String {
        var digits = String(count)
        var grouped = ""
        while digits.count > 3 {
            grouped = "," + digits.suffix(3) + grouped
            digits.removeLast(3)
        }
        let number = digits + grouped
        return (isAtLeast ? "more than " : "") + number + (count == 1 && !isAtLeast ? " utensil" : " utensils")
    }

    /// The line above the grid; `data-count` lets gallery.js keep it true as utensils come and go.
    func render() -> String {
        "<p class=\"total\" id=\"total\" data-count=\"\(count)\"\(isAtLeast ? " data-at-least" : "")>\(text)</p>\n"
    }
}
