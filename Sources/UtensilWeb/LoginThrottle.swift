import Foundation
import Synchronization

/// Slows sign-in guesses, decided atomically: an attempt is counted as a failure *before* its
/// password is checked (``reserve(account:address:now:)``), and forgiven only when the password
/// was right, so a burst of parallel guesses has one checked, not all of them.
///
/// Failures are counted per address (on any account) and per account (from any address);
/// after the n-th failure in a row the next attempt waits 2^(n-1) seconds (at most 5
/// minutes). An account's count holds back only addresses that have failed themselves: a
/// right password from an address that did not fail is never locked out by someone else's
/// guesses. Without an address (a Unix socket behind a proxy) the account's count holds back
/// every attempt.
final class LoginThrottle: Sendable {
    /// What ``reserve(account:address:now:)`` decided.
    enum Decision: Equatable {
        /// Check the password now; then call ``succeeded(account:address:)`` if it was right.
        case check
        /// Refuse without checking; try again after this many seconds.
        case wait(seconds: Int)
    }

    static let maximumDelay: Double = 300

    private struct Failures {
        var count: Int
        var last: Date

        func wait(now: Date) -> Int {
            let delay = min(pow(2, Double(count - 1)), LoginThrottle.maximumDelay)
            return max(0, Int(last.addingTimeInterval(delay).timeIntervalSince(now).rounded(.up)))
        }
    }

    private let failures = Mutex<[String: Failures]>([:])

    /// Counts an attempt on `account` from `address` as a failure and says whether its
    /// password may be checked; at one instant, at most one attempt per address (or per
    /// account without an address) gets `.check`.
    func reserve(account: String, address: String?, now: Date = Date()) -> Decision {
        let accountKey = "account:" + account
        let addressKey = address.map { "address:" + $0 }
        return failures.withLock { table in
            if table.count > 10_000 { table = table.filter { now.timeIntervalSince($0.value.last) < Self.maximumDelay } }
            var holding: [String] = []
            if let addressKey {
                holding.append(addressKey)
                // An address that has not failed is not held back by the account's failures.
                if table[addressKey] != nil { holding.append(accountKey) }
            } else {
                holding.append(accountKey)
            }
            let wait = holding.compactMap { table[$0]?.wait(now: now) }.max() ?? 0
            guard wait == 0 else { return .wait(seconds: wait) }
            for key in [accountKey] + (addressKey.map { [$0] } ?? []) {
                table[key] = Failures(count: (table[key]?.count ?? 0) + 1, last: now)
            }
            return .check
        }
    }

    /// The password was wrong: the back-off of `account` and of `address` counts from now,
    /// the answer, rather than from the attempt (a slow check must not use up the wait).
    func failed(account: String, address: String?, now: Date = Date()) {
        failures.withLock { table in
            for key in ["account:" + account] + (address.map { ["address:" + $0] } ?? []) {
                table[key]?.last = now
            }
        }
    }

    /// The password was right: forgets the failures of `account` and of `address`.
    func succeeded(account: String, address: String?) {
        failures.withLock { table in
            table["account:" + account] = nil
            if let address { table["address:" + address] = nil }
        }
    }
}
