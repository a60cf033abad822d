/// The page a person gets for a refused or missing page: the header of every page (home,
/// Trash, signing in), a heading naming what happened, one sentence saying what to do — worded
/// for the gallery, not for `utensilctl` — and the way back to the gallery.
struct ProblemPage: Sendable {
    let problem: WebProblem
    /// The path asked for: a missing utensil is told apart from a missing page.
    let path: String
    let user: String?

    func render() -> String {
        let heading: String
        let sentence: String
        switch problem.status {
        case .notFound where path.hasPrefix("/utensils/"):
            heading = "No such utensil"
            sentence = "This utensil is not in the gallery: it may have been deleted (deleted utensils wait in the "
                + "<a href=\"/trash\">trash</a> before they go for good), or the link is mistyped."
        case .notFound:
            heading = "No such page"
            sentence = "There is no page at this address; the gallery shows every utensil, and its search finds one by name."
        default:
            heading = problem.status.code >= 500 ? "Something went wrong" : "That did not work"
            sentence = Self.prose(problem.message)
        }
        let body = HTML.header(user: user) + """
            <main class="problem-page">
            <h2>\(heading)</h2>
            <p class="problem">\(sentence)</p>
            <p><a class="back" href="/">← All utensils</a></p>
            </main>
            """
        return HTML.page(title: "\(heading) — Utensils", body: body)
    }

    /// `message` escaped, with each `` `command` `` it quotes as `<code>command</code>`, so no
    /// backtick shows.
    static func prose(_ message: String) -> String {
        message.split(separator: "`", omittingEmptySubsequences: false).enumerated().map { index, part in
            index % 2 == 1 ? "<code>\(HTML.escape(part))</code>" : HTML.escape(part)
        }.joined()
    }
}
