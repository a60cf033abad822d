import Foundation
import HTTPTypes
import Hummingbird
import UtensilWebUsers

/// Who may change things: a signed-in user (session cookie), and only from the gallery's own
/// pages — a cross-site request (by `Sec-Fetch-Site`, or an `Origin` naming another host) is
/// refused before anything else.
struct Access: Sendable {
    let sessions: Sessions
    let usersFile: TrustedUsersFile

    /// The signed-in user, or nil. A session whose user is gone from the users file, or whose
    /// line there changed since sign-in (a new password, a remove and add), ends here.
    func user(_ request: Request) -> String? {
        guard let token = request.cookies[Sessions.cookieName]?.value, let session = sessions.session(for: token) else { return nil }
        let current = usersFile.users?.entry(named: session.user)?.hash
        guard current == session.generation else {
            sessions.closeAll(of: session.user, unless: current)
            return nil
        }
        return session.user
    }

    /// For every request that changes something: 403 if cross-site, 401 without a session.
    func requireUser(_ request: Request) throws(WebProblem) -> String {
        try refuseCrossSite(request)
        guard let user = user(request) else {
            throw WebProblem(.unauthorized, .permissionDenied, "Sign in at /login to change utensils.")
        }
        return user
    }

    /// A visitor asked for the favorites: they are a signed-in user's.
    static let signInForFavorites = WebProblem(.unauthorized, .permissionDenied, "Sign in at /login to see your favorites.")

    func refuseCrossSite(_ request: Request) throws(WebProblem) {
        let crossSite = WebProblem(.forbidden, .permissionDenied,
            "A page of another site cannot change utensils here; use the gallery's own pages.")
        if let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!], site != "same-origin", site != "none" {
            throw crossSite
        }
        if let origin = request.headers[.origin] {
            guard let url = URL(string: origin), let originHost = url.host(percentEncoded: false),
                  let host = request.head.authority
            else { throw crossSite }
            let port = url.port.map { ":\($0)" } ?? ""
            guard (originHost.contains(":") ? "[\(originHost)]" : originHost) + port == host else { throw crossSite }
        }
    }

    /// The session cookie: `HttpOnly`, `SameSite=Strict`, and `Secure` behind TLS (a proxy's
    /// `X-Forwarded-Proto: https`).
    static func cookie(token: String, request: Request, maxAge: Int = Int(Sessions.lifetime)) -> String {
        let secure = request.headers[HTTPField.Name("X-Forwarded-Proto")!]?.lowercased() == "https"
            || request.uri.scheme == .https
        return "\(Sessions.cookieName)=\(token); Path=/; Max-Age=\(maxAge); HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }
}
