import UtensilControlProtocol

/// A utensil's previous and next in the list it was opened from: the gallery's search,
/// category, order, favorites and page (``ListQuery``, carried in the utensil page's query).
/// Found by asking for that page again (past its end, the first utensil of the next page;
/// before its start, the last of the page before, named by ``ListQuery/prior`` and accepted
/// only when that page's `next` is this page's cursor; its link names the page before that
/// one in turn, so "previous" goes on across every page boundary).
struct ListNeighbours: Sendable {
    var previous: UtensilInfo?
    var next: UtensilInfo?
    /// The page cursors the previous and next utensils are on, and the cursors of the pages
    /// before those (their links carry them, so the walk goes on).
    var previousAfter: String?
    var previousPrior: String?
    var nextAfter: String?
    var nextPrior: String?

    /// `list`'s neighbours of the utensil `id`; none when it is not on that page, or the
    /// catalog does not answer (the page then still shows the utensil).
    static func find(_ id: String, in list: ListQuery, user: String?, backend: any GalleryBackend) async -> ListNeighbours {
        guard case .success(let page) = await backend.answer(list.call, webUser: user),
              let index = page.utensils.firstIndex(where: { $0.id.uppercased() == id.uppercased() })
        else { return ListNeighbours() }
        var found = ListNeighbours()
        if index > 0 {
            found.previous = page.utensils[index - 1]
            found.previousAfter = list.after
            found.previousPrior = list.prior
        } else if let cursor = list.after {
            // The page before: `prior`'s, or the first when there is none; it is the page before
            // only if its own `next` leads here (a link from older pages may not say).
            var earlier = list
            earlier.after = list.prior
            earlier.prior = nil
            if case .success(let before) = await backend.answer(earlier.call, webUser: user), before.next == cursor,
               let last = before.utensils.last
            {
                found.previous = last
                found.previousAfter = list.prior
                if list.prior != nil, let first = before.utensils.first {
                    found.previousPrior = await Self.prior(ofPageBeginningWith: first.id, in: list, user: user, backend: backend)
                }
            }
        }
        if index + 1 < page.utensils.count {
            found.next = page.utensils[index + 1]
            found.nextAfter = list.after
            found.nextPrior = list.prior
        } else if let cursor = page.next {
            var following = list
            following.after = cursor
            following.limit = 1
            if case .success(let nextPage) = await backend.answer(following.call, webUser: user), let first = nextPage.utensils.first {
                found.next = first
                found.nextAfter = cursor
                found.nextPrior = list.after
            }
        }
        return found
    }

    /// How many of the list's largest pages ``prior(ofPageBeginningWith:in:user:backend:)`` reads at most.
    static let walkedPages = 20

    /// The `prior` of the page of `list` that begins with the utensil `id`: the cursor the
    /// page of `list`'s size before it starts after, `nil` when that is the first page or `id`
    /// is not found. Cursors name a utensil, not a page, so it is found by reading `list`
    /// from its start in pages of 500 (at most ``walkedPages``) up to `id`, then the page
    /// that ends `list.limit` utensils before it.
    static func prior(ofPageBeginningWith id: String, in list: ListQuery, user: String?, backend: any GalleryBackend) async -> String? {
        var scan = list
        scan.after = nil
        scan.prior = nil
        scan.limit = ListQuery.maximumLimit
        // The cursor after each 500 utensils read (none before the first).
        var cursors: [String?] = [nil]
        for _ in 0..<walkedPages {
            guard case .success(let page) = await backend.answer(scan.call, webUser: user) else { return nil }
            if let index = page.utensils.firstIndex(where: { $0.id.uppercased() == id.uppercased() }) {
                let start = (cursors.count - 1) * ListQuery.maximumLimit + index - list.limit
                guard start > 0 else { return nil }
                let (whole, rest) = start.quotientAndRemainder(dividingBy: ListQuery.maximumLimit)
                guard rest > 0 else { return cursors[whole] }
                var upTo = scan
                upTo.after = cursors[whole]
                upTo.limit = rest
                guard case .success(let before) = await backend.answer(upTo.call, webUser: user) else { return nil }
                return before.next
            }
            guard let next = page.next else { return nil }
            cursors.append(next)
            scan.after = next
        }
        return nil
    }
}

extension ListQuery {
    /// The query string that names this list (`limit` only when not the default 50):
    /// `?search=a&sort=name`, or `""` for the whole gallery, newest first. `after` and `prior`
    /// name the page and the one before it.
    func context(after cursor: String?, prior: String?) -> String {
        HTML.query([
            ("search", search), ("category", category), ("favorites", favorites ? "1" : nil), ("sort", sort?.rawValue),
            ("limit", limit == 50 ? nil : String(limit)), ("after", cursor), ("prior", cursor == nil ? nil : prior),
        ])
    }
}
