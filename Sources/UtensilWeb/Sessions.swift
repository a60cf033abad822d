import Foundation
import Synchronization

/// Signed-in browsers: a random token in a cookie names a user until it expires (7 days), the
/// user signs out, or the user's line in the users file changes (a new password, or a remove
/// and add: each hash has its own salt). Kept in memory: a restart signs everyone out.
final class Sessions: Sendable {
    static let cookieName = "utensild_session"
    static let lifetime: TimeInterval = 7 * 24 * 3600

    /// Who a token names, and the bcrypt hash the user's line held at sign-in (its generation).
    struct Session: Equatable {
        var user: String
        var generation: String
        var expires: Date
    }

    private let sessions = Mutex<[String: Session]>([:])

    /// A new session for `user`, whose users-file hash is `generation`; returns its token
    /// (256 random bits, base64url).
    func open(for user: String, generation: String, now: Date = Date()) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let token = Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        sessions.withLock { table in
            table = table.filter { $0.value.expires > now }
            table[token] = Session(user: user, generation: generation, expires: now.addingTimeInterval(Self.lifetime))
        }
        return token
    }

    /// The session a token names, if it has not expired.
    func session(for token: String, now: Date = Date()) -> Session? {
        sessions.withLock { table in
            guard let session = table[token] else { return nil }
            guard session.expires > now else {
                table[token] = nil
                return nil
            }
            return session
        }
    }

    func close(_ token: String) { _ = sessions.withLock { $0.removeValue(forKey: token) } }

    /// Signs `user` out everywhere their users-file line is no longer `current` (nil: the user
    /// is gone), so a changed password or a removed user ends every older session at once.
    func closeAll(of user: String, unless current: String? = nil) {
        sessions.withLock { $0 = $0.filter { $0.value.user != user || $0.value.generation == current } }
    }
}
