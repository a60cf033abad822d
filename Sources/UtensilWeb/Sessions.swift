import Foundation
import Synchronization

/// Signed-in browsers: a random token in a cookie names a user until it expires (7 days) or
/// the user signs out. Kept in memory: a restart signs everyone out.
final class Sessions: Sendable {
    static let cookieName = "utensild_session"
    static let lifetime: TimeInterval = 7 * 24 * 3600

    private struct Session {
        var user: String
        var expires: Date
    }

    private let sessions = Mutex<[String: Session]>([:])

    /// A new session for `user`; returns its token (256 random bits, base64url).
    func open(for user: String, now: Date = Date()) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let token = Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        sessions.withLock { table in
            table = table.filter { $0.value.expires > now }
            table[token] = Session(user: user, expires: now.addingTimeInterval(Self.lifetime))
        }
        return token
    }

    /// The user a token names, if it is current.
    func user(for token: String, now: Date = Date()) -> String? {
        sessions.withLock { table in
            guard let session = table[token] else { return nil }
            guard session.expires > now else {
                table[token] = nil
                return nil
            }
            return session.user
        }
    }

    func close(_ token: String) { _ = sessions.withLock { $0.removeValue(forKey: token) } }

    /// Signs `user` out everywhere (after `utensilctl web-user remove` the next request finds it gone).
    func closeAll(of user: String) { sessions.withLock { $0 = $0.filter { $0.value.user != user } } }
}

/// Slows sign-in attempts after failures, per user name and per client: after the n-th
/// failure in a row the next attempt is refused for 2^(n-1) seconds (at most 5 minutes).
final class LoginThrottle: Sendable {
    private struct Failures {
        var count: Int
        var last: Date
    }

    private let failures = Mutex<[String: Failures]>([:])

    /// Seconds to wait before `keys` may try again; 0 if they may now.
    func wait(for keys: [String], now: Date = Date()) -> Int {
        failures.withLock { table in
            keys.compactMap { table[$0] }.map { failure in
                let delay = min(pow(2, Double(failure.count - 1)), 300)
                return max(0, Int((failure.last.addingTimeInterval(delay).timeIntervalSince(now)).rounded(.up)))
            }.max() ?? 0
        }
    }

    func failed(_ keys: [String], now: Date = Date()) {
        failures.withLock { table in
            if table.count > 10_000 { table = table.filter { now.timeIntervalSince($0.value.last) < 300 } }
            for key in keys { table[key] = Failures(count: (table[key]?.count ?? 0) + 1, last: now) }
        }
    }

    func succeeded(_ keys: [String]) { failures.withLock { table in for key in keys { table[key] = nil } } }
}
