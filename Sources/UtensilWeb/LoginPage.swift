/// `GET /login`: the sign-in form (or who is signed in, and a sign-out button).
struct LoginPage: Sendable {
    let message: String?
    let signedIn: String?

    func render() -> String {
        var body = HTML.header(user: signedIn) + "<main class=\"login\">\n"
        if let message { body += "<p class=\"problem\" role=\"alert\">\(HTML.escape(message))</p>\n" }
        if let signedIn {
            body += """
            <p>Signed in as <strong>\(HTML.escape(signedIn))</strong>.</p>
            <form method="post" action="/logout"><button type="submit">Sign out</button></form>

            """
        } else {
            body += """
            <h2>Sign in</h2>
            <p>Signing in lets you rename, delete and upload utensils. Reading needs no account.</p>
            <form method="post" action="/login" class="stack">
            <label>Name <input name="name" autocomplete="username" required maxlength="64"></label>
            <label>Password <input name="password" type="password" autocomplete="current-password" required></label>
            <button type="submit">Sign in</button>
            </form>

            """
        }
        body += "</main>"
        return HTML.page(title: "Sign in — Utensils", body: body)
    }
}
