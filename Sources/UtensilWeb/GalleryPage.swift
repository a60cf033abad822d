import UtensilControlProtocol
import UtensilCore

/// `GET /`: the grid of thumbnails with names, a search box and order, "More" by cursor,
/// an empty state saying where photos go, and a place for live news (gallery.js).
struct GalleryPage: Sendable {
    /// The upload picker's `accept`: every photo extension, and any image.
    static var uploadAccept: String { PhotoExtension.allCases.map { "." + $0.rawValue }.joined(separator: ",") + ",image/*" }

    let query: ListQuery
    let page: UtensilPage
    let inbox: String
    let categories: [CategoryInfo]
    let user: String?

    func render() -> String {
        let search = query.search ?? ""
        let sort = query.sort ?? .newestFirst
        let searchForm = """
        <form class="search" action="/" method="get" role="search">
        \(query.category.map { "<input type=\"hidden\" name=\"category\" value=\"\(HTML.escape($0))\">" } ?? "")
        <input type="search" name="search" value="\(HTML.escape(search))" placeholder="Search names" aria-label="Search names" maxlength="\(ListQuery.maximumSearchCharacters)">
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
            <label>Add photos <input type="file" name="files" id="upload-files" multiple accept="\(Self.uploadAccept)"></label>
            <button type="submit">Upload</button>
            </form>
            <p class="hint">…or drop photos anywhere on this page.</p>
            <ul class="uploads" id="uploads" aria-live="polite"></ul>
            </section>

            """
        }
        if !categories.isEmpty {
            body += "<nav class=\"chips\" aria-label=\"Categories\">"
            let all = "/" + HTML.query([("search", query.search), ("sort", query.sort?.rawValue)])
            body += "<a href=\"\(HTML.escape(all))\"\(query.category == nil ? " class=\"chosen\"" : "")>All</a>"
            for category in categories {
                let link = "/" + HTML.query([("search", query.search), ("category", category.name), ("sort", query.sort?.rawValue)])
                let chosen = query.category?.lowercased() == category.name.lowercased()
                body += "<a href=\"\(HTML.escape(link))\" data-category=\"\(HTML.escape(category.name))\"\(chosen ? " class=\"chosen\"" : "")>"
                    + "\(HTML.escape(category.name)) <span class=\"count\">\(category.count)</span></a>"
            }
            body += "</nav>\n"
        }
        body += "<ul class=\"news\" id=\"news\" aria-live=\"polite\"></ul>\n"
        let live = query.after == nil && search.isEmpty && query.category == nil && sort == .newestFirst
        body += "<ul class=\"grid\" id=\"grid\"\(live ? " data-live=\"newest\"" : "")>\n"
        for utensil in page.utensils { body += Self.card(utensil) }
        body += "</ul>\n"
        if page.utensils.isEmpty {
            body += query.after == nil && search.isEmpty
                ? """
                <p class="empty" id="empty">No utensils yet. Drop photos (.jpg, .png, .heic, .webp …) into <code>\(HTML.escape(inbox))</code> on the server \
                — or into a folder inside it, to give them a category — and they appear here.</p>

                """
                : "<p class=\"empty\" id=\"empty\">No utensil matches. <a href=\"/\">Show them all</a>.</p>\n"
        }
        if let next = page.next {
            let more = "/" + HTML.query([
                ("search", query.search), ("category", query.category), ("sort", query.sort?.rawValue), ("after", next),
            ])
            body += "<p class=\"more\"><a href=\"\(HTML.escape(more))\" rel=\"next\">More</a></p>\n"
        }
        body += "</main>\n"
        return HTML.page(title: search.isEmpty ? "Utensils" : "\(search) — Utensils", body: body)
    }

    /// One grid cell; gallery.js builds the same markup for a utensil that arrives live.
    static func card(_ utensil: UtensilInfo) -> String {
        """
        <li class="card" data-id="\(utensil.id)"><a href="/utensils/\(utensil.id)">\
        <img src="\(HTML.thumbnailURL(utensil))" width="180" height="180" alt="\(HTML.escape(utensil.name))" loading="lazy">\
        <span class="name">\(HTML.escape(utensil.name))</span></a></li>

        """
    }

    private func option(_ value: ListSort, _ label: String, _ selected: ListSort) -> String {
        "<option value=\"\(value.rawValue)\"\(value == selected ? " selected" : "")>\(label)</option>"
    }
}
