import UtensilControlProtocol

/// `GET /utensils/{id}`: the larger picture (the display-size preview, a JPEG every browser
/// shows, whatever the original's format), a link to download the original, and the
/// utensil's facts; for signed-in users, rename, change category and delete (restore is on
/// the trash page).
struct UtensilDetailPage: Sendable {
    let utensil: UtensilInfo
    let user: String?
    /// The list the utensil was opened from, and its neighbours there: previous and next
    /// (`rel=prev`/`rel=next`, also the arrow keys in gallery.js) and the way back to the same
    /// place in that list.
    var list = ListQuery()
    var neighbours = ListNeighbours()
    /// The categories the category field offers (a `<datalist>`: pick one, or type a new one).
    var categories: [CategoryInfo] = []
    /// Show the original itself rather than the preview (``showsOriginal(_:previewBytes:)``).
    var imageIsOriginal = false

    /// Whether the page shows the original instead of the preview: when every browser shows
    /// its format, it is no larger than a preview (long side at most 1,600 px), and its file
    /// is not larger than the preview's (a small WebP's JPEG preview can weigh twice as much).
    static func showsOriginal(_ utensil: UtensilInfo, previewBytes: Int?) -> Bool {
        guard let previewBytes, browserFormats.contains(utensil.fileExtension.lowercased()) else { return false }
        return max(utensil.width, utensil.height) <= 1600 && utensil.bytes <= previewBytes
    }

    /// What the viewer (gallery.js) shows once zoomed past the preview's own pixels: the
    /// original, when every browser shows its format (a HEIC stays the preview).
    var zoomSource: String? {
        Self.browserFormats.contains(utensil.fileExtension.lowercased()) ? HTML.originalURL(utensil) : nil
    }

    /// The formats every browser shows.
    static let browserFormats: Set<String> = ["jpg", "jpeg", "png", "webp", "gif"]

    /// Back to the list, scrolled to this utensil's card; previous and next in it.
    func pager() -> String {
        let context = list.context(after: list.after, prior: list.prior)
        let back = "/" + context + "#u-\(utensil.id)"
        var links = "<a class=\"back\" href=\"\(HTML.escape(back))\">\(context.isEmpty ? "← All utensils" : "← Back to the list")</a>"
        if let previous = neighbours.previous {
            let href = "/utensils/\(previous.id)" + list.context(after: neighbours.previousAfter, prior: neighbours.previousPrior)
            links += "<a rel=\"prev\" href=\"\(HTML.escape(href))\" title=\"\(HTML.escape(previous.name))\">‹&nbsp;Previous"
                + "<span class=\"visually-hidden\">: \(HTML.escape(previous.name))</span></a>"
        }
        if let next = neighbours.next {
            let href = "/utensils/\(next.id)" + list.context(after: neighbours.nextAfter, prior: neighbours.nextPrior)
            links += "<a rel=\"next\" href=\"\(HTML.escape(href))\" title=\"\(HTML.escape(next.name))\">Next"
                + "<span class=\"visually-hidden\">: \(HTML.escape(next.name))</span>&nbsp;›</a>"
        }
        return "<nav class=\"pager\" aria-label=\"In the list\">\(links)</nav>"
    }

    func render() -> String {
        let name = HTML.escape(utensil.name)
        var facts: [(String, String)] = [
            ("Category", utensil.category.map { "<a href=\"/\(HTML.escape(HTML.query([("category", $0)])))\">\(HTML.escape($0))</a>" } ?? "none"),
            ("Size", HTML.escape(HTML.size(utensil.bytes))),
            ("Pixels", "\(utensil.width) × \(utensil.height)"),
            ("Format", HTML.escape(utensil.fileExtension.uppercased())),
            ("Added", HTML.time(utensil.createdAt)),
        ]
        if let addedBy = utensil.addedBy { facts.append(("Added by", HTML.escape(addedBy))) }
        if let host = utensil.host { facts.append(("Host", HTML.escape(host))) }
        if let near = utensil.nearDuplicateOf {
            facts.append(("Looks like", "a copy of <a href=\"/utensils/\(HTML.escape(near.id))\">\(HTML.escape(near.name))</a>"))
        }
        facts.append(("Updated", utensil.updatedAt.map(HTML.time) ?? "never"))
        facts.append(("Id", "<code>\(utensil.id)</code>"))
        let list = facts.map { "<dt>\($0.0)</dt><dd>\($0.1)</dd>" }.joined(separator: "\n")
        let changes = user == nil ? "" : """
        <section class="changes">
        <form method="post" action="/utensils/\(utensil.id)/rename" class="inline">
        <label>New name <input name="name" value="\(name)" required maxlength="100"></label>
        <button type="submit">Rename</button>
        </form>
        <form method="post" action="/utensils/\(utensil.id)/category" class="inline">
        <label>Category <input name="category" value="\(HTML.escape(utensil.category ?? ""))" maxlength="100" placeholder="none" \
        list="category-choices" autocomplete="off"></label>
        <datalist id="category-choices">\(categories.map { "<option value=\"\(HTML.escape($0.name))\"></option>" }.joined())</datalist>
        <button type="submit">Change category</button>
        </form>
        <form method="post" action="/utensils/\(utensil.id)/delete" class="inline">
        <button type="submit" class="danger">Delete</button>
        </form>
        </section>
        """
        let body = HTML.header(user: user) + """
        <main class="utensil">
        \(pager())
        <h2><span class="title">\(name)</span>\(user == nil ? "" : " " + GalleryPage.star(utensil, back: "/utensils/\(utensil.id)"))</h2>
        <figure class="viewer" id="viewer"><img class="preview" src="\(imageIsOriginal ? HTML.originalURL(utensil) : HTML.previewURL(utensil))" alt="\(name)" \
        width="\(utensil.width)" height="\(utensil.height)"\(zoomSource.map { " data-zoom-src=\"\(HTML.escape($0))\"" } ?? "")>
        <figcaption><a class="download" href="\(HTML.originalURL(utensil))" download>Download the original         (\(HTML.escape(utensil.fileExtension.uppercased())), \(HTML.escape(HTML.size(utensil.bytes))))</a></figcaption></figure>
        <dl class="facts">
        \(list)
        </dl>
        \(changes)
        </main>
        """
        return HTML.page(title: "\(utensil.name) — Utensils", body: body)
    }
}
