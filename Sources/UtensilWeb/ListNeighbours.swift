import UtensilControlProtocol

/// A utensil's previous and next in the list it was opened from: the gallery's search,
/// category, order, favorites and page (``ListQuery``, carried in the utensil page's query).
/// Found by asking for that page again (and, past its end, the first utensil of the next
/// page); cursors only lead forward, so the first utensil of a later page has no previous.
struct ListNeighbours: Sendable {
    var previous: UtensilInfo?
    var next: UtensilInfo?
    /// The page cursor the next utensil is on (its links carry it, so the walk goes on).
    var nextAfter: String?

    /// `list`'s neighbours of the utensil `id`; none when it is not on that page, or the
    /// catalog does not answer (the page then still shows the utensil).
    static func find(_ id: String, in list: ListQuery, user: String?, backend: any GalleryBackend) async -> ListNeighbours {
        guard case .success(let page) = await backend.answer(list.call, webUser: user),
              let index = page.utensils.firstIndex(where: { $0.id.uppercased() == id.uppercased() })
        else { return ListNeighbours() }
        var found = ListNeighbours()
        if index > 0 { found.previous = page.utensils[index - 1] }
        if index + 1 < page.utensils.count {
            found.next = page.utensils[index + 1]
            found.nextAfter = list.after
        } else if let cursor = page.next {
            var following = list
            following.after = cursor
            following.limit = 1
            if case .success(let nextPage) = await backend.answer(following.call, webUser: user), let first = nextPage.utensils.first {
                found.next = first
                found.nextAfter = cursor
            }
        }
        return found
    }
}

extension ListQuery {
    /// The query string that names this list (without `limit`): `?search=a&sort=name`, or
    /// `""` for the whole gallery, newest first. `after` replaces the page cursor.
    func context(after cursor: String?) -> String {
        HTML.query([
            ("search", search), ("category", category), ("favorites", favorites ? "1" : nil), ("sort", sort?.rawValue),
            ("after", cursor),
        ])
    }
}
