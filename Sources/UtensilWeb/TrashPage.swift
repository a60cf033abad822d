import UtensilControlProtocol

/// `GET /trash`: the utensils in the trash in `utensilctl trash`'s order (longest there, so
/// next to be purged, first), each with when it is purged; signed-in users get a Restore
/// button on each (with an optional new name, for a name taken since).
struct TrashPage: Sendable {
    let utensils: [UtensilInfo]
    let user: String?

    func render() -> String {
        var body = HTML.header(user: user) + """
        <main class="trash">
        <p><a href="/">← All utensils</a></p>
        <h2>Trash</h2>

        """
        if utensils.isEmpty {
            body += "<p class=\"empty\" id=\"empty\">The trash is empty.</p>\n"
        } else {
            body += "<ul class=\"trashed\">\n"
            for utensil in utensils { body += item(utensil) }
            body += "</ul>\n"
        }
        body += "</main>\n"
        return HTML.page(title: "Trash — Utensils", body: body)
    }

    private func item(_ utensil: UtensilInfo) -> String {
        let name = HTML.escape(utensil.name)
        var facts = utensil.trashedAt.map { "deleted \(HTML.time($0))" } ?? ""
        if let purgeAt = utensil.purgeAt { facts += ", removed for good \(HTML.time(purgeAt))" }
        let restore = user == nil ? "" : """
            <form method="post" action="/utensils/\(utensil.id)/restore" class="inline">\
            <label>as <input name="as" placeholder="\(name)" maxlength="100"></label> \
            <button type="submit">Restore</button></form>
            """
        return """
        <li data-id="\(utensil.id)"><img src="\(HTML.thumbnailURL(utensil))" width="90" height="90" alt="\(name)" loading="lazy"> \
        <span class="name">\(name)</span> <span class="when">\(facts)</span> \(restore)</li>

        """
    }
}
