import Synchronization
import UtensilCatalogModel

/// A bound on how long a catalog call waits for a connection from the pool.
///
/// While the server is down, postgres-nio's pool keeps a waiting call until its circuit
/// breaker trips (after 15 s of failed attempts, not configurable through `PostgresClient`). The catalog
/// instead gives up waiting after ``seconds`` and reports
/// ``CatalogError/unavailable(code:detail:)``, so drops are left for a retry and control
/// commands answer promptly. Only the wait for a connection is bounded: once `body` runs on
/// a leased connection it is never cancelled, so a statement or a transaction is never cut
/// in the middle by this deadline. A call still waiting when its pool is replaced
/// (``PostgresPool``: the server answers again) stops waiting on the old one and is tried again.
struct PostgresLeaseDeadline: Sendable {
    /// How long a call waits for a connection before the catalog counts as unavailable.
    let seconds: Int64

    /// How often a waiting call looks whether its pool was replaced.
    static let renewalCheck = Duration.milliseconds(100)

    /// Runs `lease` (which calls its argument once it holds a connection); throws
    /// ``CatalogError/unavailable(code:detail:)`` when no connection came within ``seconds``,
    /// and ``PostgresSession/Stale`` (nothing was sent: try again) when `renewed()` says the
    /// pool was replaced before a connection came.
    func run<T: Sendable>(
        renewed: @escaping @Sendable () -> Bool = { false },
        _ lease: @escaping @Sendable (_ leased: @escaping @Sendable () -> Void) async throws -> T
    ) async throws -> T {
        let leased = LeaseFlag()
        let seconds = self.seconds
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await lease { leased.set() } }
            group.addTask {
                let deadline = ContinuousClock.now + .seconds(seconds)
                while ContinuousClock.now < deadline {
                    try await Task.sleep(for: min(Self.renewalCheck, deadline - ContinuousClock.now))
                    if leased.isSet { return nil }
                    if renewed() { throw PostgresSession.Stale() }
                }
                if leased.isSet { return nil }
                throw CatalogError.unavailable(code: -1, detail: "PostgreSQL gave no connection within \(seconds) seconds")
            }
            do {
                while let next = try await group.next() {
                    if let value = next {
                        group.cancelAll()
                        return value
                    }
                    // The deadline passed with a connection held: wait for `body` to finish.
                }
            } catch {
                group.cancelAll()
                throw error
            }
            throw CatalogError.unavailable(code: -1, detail: "PostgreSQL call ended without an answer")
        }
    }
}

/// Whether a call holds its connection yet; shared by the call and its deadline.
private final class LeaseFlag: Sendable {
    private let value = Mutex(false)

    var isSet: Bool { value.withLock { $0 } }

    func set() { value.withLock { $0 = true } }
}
