/// `GET /account`: who is signed in, a sign-out button, and the form to change one's own
/// password (the old one required); a message above it after a change or a refusal.
struct AccountPage: Sendable {
    let user: String
    let message: String?
    /// The message says a problem (shown as an alert) rather than a success.
    var isProblem = false

    func render() -> String {
        var body = HTML.header(user: user) + "<main class=\"account-page\">\n<h2>Your account</h2>\n"
        if let message {
            body += isProblem
                ? "<p class=\"problem\" role=\"alert\">\(HTML.escape(message))</p>\n"
                : "<p class=\"done\" role=\"status\">\(HTML.escape(message))</p>\n"
        }
        body += """
        <p>Signed in as <strong>\(HTML.escape(user))</strong>.</p>
        <form method="post" action="/account/password" class="stack" id="password-form">
        <h3>Change your password</h3>
        <label>Current password <input name="old" type="password" autocomplete="current-password" required></label>
        <label>New password (at least \(AccountRoutes.minimumPasswordLength) characters) <input name="new" type="password" autocomplete="new-password" required minlength="\(AccountRoutes.minimumPasswordLength)"></label>
        <label>New password again <input name="again" type="password" autocomplete="new-password" required minlength="\(AccountRoutes.minimumPasswordLength)"></label>
        <button type="submit">Change password</button>
        </form>
        <p class="hint">Changing it signs you out everywhere else; this browser stays signed in.</p>
        <form method="post" action="/logout"><button type="submit">Sign out</button></form>
        </main>
        """
        return HTML.page(title: "Your account — Utensils", body: body)
    }
}
