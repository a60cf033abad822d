import UtensilControlProtocol
import UtensilCore

/// `GET /`: the grid of thumbnails with names, a search box and order, "More" by cursor,
/// an empty state saying where photos go, and a place for live news (gallery.js). A
/// signed-in user also gets a star on each utensil and a Favorites chip (`?favorites=1`).
struct GalleryPage: Sendable {
    /// The upload picker's `accept`: any image, so that a phone offers its camera beside its
    /// photo library (a list of extensions makes some phones offer files only).
    static let uploadAccept = "image/*"

    let query: ListQuery
    let page: UtensilPage
    let inbox: String
    let categories: [CategoryInfo]
    let user: String?
    /// A utensil the user has just deleted, still in the trash: a line with its Undo (a
    /// restore form, so it works without JavaScript).
    var undo: UtensilInfo?
    /// How many utensils the list holds, said above the grid (nil: not known).
    var total: ListTotal?
    /// Photos just shared from a phone's share sheet (`POST /share`): sent into the inbox, and
    /// refused.
    var shared: (sent: Int, refused: Int)?

    func render() -> String {
        let search = query.search ?? ""
        let sort = query.sort ?? .newestFirst
        let searchForm = """
        <form class="search" action="/" method="get" role="search">
        \(query.category.map { "<input type=\"hidden\" name=\"category\" value=\"\(HTML.escape($0))\">" } ?? "")
        \(query.favorites ? "<input type=\"hidden\" name=\"favorites\" value=\"1\">" : "")
        <input type="search" name="search" value="\(HTML.escape(search))" placeholder="Search names" aria-label="Search names" maxlength="\(ListQuery.maximumSearchCodePoints)">
        <select name="sort" aria-label="Order">
        \(option(.newestFirst, "Newest first", sort))\(option(.name, "By name", sort))\(option(.created, "Oldest first", sort))
        </select>
        <button type="submit">Search</button>
        </form>

        """
        var body = HTML.header(user: user, extra: searchForm) + "<main>\n"
        if user != nil {
            body += """
            <section class="upload" id="upload">
            <form id="upload-form" method="post" action="/api/v1/uploads" enctype="multipart/form-data">
            <label><span class="pointer-fine">Add photos</span><span class="pointer-coarse">Take a photo or choose from your library</span> \
            <input type="file" name="files" id="upload-files" multiple accept="\(Self.uploadAccept)"></label>
            <button type="submit">Upload</button>
            </form>
            <p class="hint pointer-fine">…or drop photos anywhere on this page.</p>
            <ul class="uploads" id="uploads" aria-live="polite"></ul>
            </section>

            """
        }
        if !categories.isEmpty || user != nil {
            body += "<nav class=\"chips\" id=\"chips\" aria-label=\"Categories\">"
            let all = "/" + HTML.query([("search", query.search), ("sort", query.sort?.rawValue)])
            let allChosen = query.category == nil && !query.favorites
            body += "<a href=\"\(HTML.escape(all))\"\(allChosen ? " class=\"chosen\"" : "")>All</a>"
            if user != nil {
                let favorites = "/" + HTML.query([("search", query.search), ("favorites", "1"), ("sort", query.sort?.rawValue)])
                body += "<a href=\"\(HTML.escape(favorites))\" class=\"favorites\(query.favorites ? " chosen" : "")\">"
                    + "<span aria-hidden=\"true\">★</span> Favorites</a>"
            }
            let favoritesOnly = query.favorites ? "1" : nil
            // A category's count is the whole catalog's (counted as rows change, so cheap); on a
            // search or the favorites it would contradict the total above the grid, and counting
            // per category within a search would scan every name: those chips go without.
            let counted = search.isEmpty && !query.favorites
            for category in categories {
                let link = "/" + HTML.query([
                    ("search", query.search), ("category", category.name), ("favorites", favoritesOnly), ("sort", query.sort?.rawValue),
                ])
                let chosen = query.category?.lowercased() == category.name.lowercased()
                body += "<a href=\"\(HTML.escape(link))\" data-category=\"\(HTML.escape(category.name))\"\(chosen ? " class=\"chosen\"" : "")>"
                    + HTML.escape(category.name) + (counted ? " <span class=\"count\">\(category.count)</span>" : "") + "</a>"
            }
            body += "</nav>\n"
        }
        if user != nil, let category = query.category, !query.favorites {
            body += Self.categoryForms(category)
        }
        if let undo {
            body += "<div class=\"undo\" role=\"status\"><span>\(HTML.escape(undo.name)) is in the trash.</span> "
                + "<form method=\"post\" action=\"/utensils/\(undo.id)/restore\" class=\"inline\"><button type=\"submit\">Undo</button></form></div>\n"
        }
        if let shared {
            let photos = { (count: Int) in count == 1 ? "1 photo" : "\(count) photos" }
            var line = shared.sent == 0 ? "No photo was sent to the inbox." : "\(photos(shared.sent)) sent to the inbox; each appears here once it is added."
            if shared.refused > 0 { line += " \(photos(shared.refused)) could not be sent (not a photo the gallery takes); try them with Upload." }
            body += "<p class=\"shared\" role=\"status\">\(HTML.escape(line))</p>\n"
        }
        body += Self.tray
        if user != nil { body += Self.selectBar(categories) }
        let live = query.after == nil && search.isEmpty && query.category == nil && sort == .newestFirst && !query.favorites
        let context = query.context(after: query.after, prior: query.prior)
        let back = user == nil ? nil : "/" + context
        if let total { body += total.render() }
        // `data-back`: gallery.js gives a utensil that arrives live the same star.
        let starAttribute = back.map { " data-back=\"\(HTML.escape($0))\"" } ?? ""
        body += "<ul class=\"grid\" id=\"grid\"\(live ? " data-live=\"newest\"" : "")\(starAttribute)>\n"
        for utensil in page.utensils { body += Self.card(utensil, back: back, context: context) }
        body += "</ul>\n"
        if page.utensils.isEmpty && query.favorites && query.after == nil {
            body += "<p class=\"empty\" id=\"empty\">No favorites here yet: press the star (☆) on a utensil to add it.</p>\n"
        } else if page.utensils.isEmpty {
            body += query.after == nil && search.isEmpty
                ? """
                <p class="empty" id="empty">No utensils yet. Drop photos (.jpg, .png, .heic, .webp …) into <code>\(HTML.escape(inbox))</code> on the server \
                — or into a folder inside it, to give them a category — and they appear here.</p>

                """
                : "<p class=\"empty\" id=\"empty\">No utensil matches. <a href=\"/\">Show them all</a>.</p>\n"
        }
        if let next = page.next {
            // Followed by gallery.js as the grid scrolls (infinite scroll); a plain link without it.
            let more = "/" + query.context(after: next, prior: query.after)
            body += "<p class=\"more\"><a href=\"\(HTML.escape(more))\" rel=\"next\">More</a></p>\n"
        }
        body += "</main>\n"
        return HTML.page(title: search.isEmpty ? "Utensils" : "\(search) — Utensils", body: body)
    }

    /// One grid cell; gallery.js builds the same markup for a utensil that arrives live. With
    /// `back` (a signed-in user; the page to come back to), a star toggles it as a favorite.
    /// `context` (``ListQuery/context(after:prior:)``) goes to the utensil's page, for its previous,
    /// next and back links; the cell's `id` is where "back" scrolls to.
    static func card(_ utensil: UtensilInfo, back: String? = nil, context: String = "") -> String {
        """
        <li class="card" id="u-\(utensil.id)" data-id="\(utensil.id)"><a href="\(HTML.escape("/utensils/\(utensil.id)" + context))">\
        <img src="\(HTML.thumbnailURL(utensil))" srcset="\(HTML.cardSourceSet(utensil))" sizes="\(HTML.cardSizes)" \
        width="180" height="180" alt="\(HTML.escape(utensil.name))" loading="lazy">\
        <span class="name">\(HTML.escape(utensil.name))</span></a>\(back.map { star(utensil, back: $0) } ?? "")</li>

        """
    }

    /// The notices tray, filled by gallery.js from the event stream (so hidden until it has a
    /// notice, and without JavaScript): one line over the grid with the newest notice and a
    /// count that opens a panel of them all, each dismissed by its own button.
    static let tray = """
        <section class="tray" id="tray" aria-label="Notices" hidden>
        <div class="tray-bar"><p class="tray-latest" id="tray-latest" role="status"></p>\
        <button type="button" class="tray-toggle" id="tray-toggle" aria-expanded="false" aria-controls="tray-panel">\
        <span class="visually-hidden">Notices: </span><span class="total">0</span><span class="rejections"></span></button></div>
        <div class="tray-panel" id="tray-panel" hidden>
        <div class="tray-head"><h2>Notices</h2><button type="button" id="tray-clear">Dismiss all</button></div>
        <ul class="news" id="news"></ul>
        </div>
        </section>

        """

    /// Selecting several cards to star, move or delete them at once (signed-in users). Hidden
    /// until gallery.js shows it: it works only with the script (each card keeps its own forms).
    static func selectBar(_ categories: [CategoryInfo]) -> String {
        let choices = categories.map { "<option value=\"\(HTML.escape($0.name))\"></option>" }.joined()
        return """
            <section class="select-bar" id="select-bar" aria-label="Select several" hidden>
            <button type="button" id="select-toggle" aria-pressed="false">Select</button>
            <span id="select-count" role="status" hidden></span>
            <div class="select-actions" id="select-actions" hidden>
            <button type="button" data-bulk="favorite">★ Star</button>
            <label>Move to <input id="select-category" list="category-choices" maxlength="100" placeholder="no category" \
            autocomplete="off"></label>
            <datalist id="category-choices">\(choices)</datalist>
            <button type="button" data-bulk="move">Move</button>
            <button type="button" data-bulk="delete" class="danger">Delete</button>
            </div>
            </section>

            """
    }

    /// On a category's view, for a signed-in user: rename it (into an existing name: merge)
    /// or delete it (its utensils stay, uncategorised).
    static func categoryForms(_ category: String) -> String {
        let name = HTML.escape(category)
        return """
            <section class="category-forms" aria-label="Manage the category">
            <form method="post" action="/categories/rename" class="inline">\
            <input type="hidden" name="category" value="\(name)">\
            <label>Rename category <input name="name" value="\(name)" required maxlength="100"></label> \
            <button type="submit">Rename</button></form>
            <form method="post" action="/categories/delete" class="inline">\
            <input type="hidden" name="category" value="\(name)">\
            <button type="submit" class="danger">Delete category (keeps its utensils)</button></form>
            </section>

            """
    }

    /// The favorite toggle of a utensil: a form posting to `/utensils/{id}/favorite` (or
    /// `unfavorite`), then back to `back`.
    static func star(_ utensil: UtensilInfo, back: String) -> String {
        let favorite = utensil.favorite == true
        let action = favorite ? "unfavorite" : "favorite"
        let label = (favorite ? "Remove from favorites: " : "Add to favorites: ") + utensil.name
        return """
            <form method="post" action="/utensils/\(utensil.id)/\(action)" class="star-form">\
            <input type="hidden" name="back" value="\(HTML.escape(back))">\
            <button type="submit" class="star" aria-pressed="\(favorite)" aria-label="\(HTML.escape(label))" title="\(HTML.escape(label))">\
            \(favorite ? "★" : "☆")</button></form>
            """
    }

    private func option(_ value: ListSort, _ label: String, _ selected: ListSort) -> String {
        "<option value=\"\(value.rawValue)\"\(value == selected ? " selected" : "")>\(label)</option>"
    }
}
