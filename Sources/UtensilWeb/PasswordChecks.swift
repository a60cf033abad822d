import NIOCore
import NIOPosix
import Synchronization

/// Where bcrypt runs: a few threads of its own, never the pool that catalog reads and commits
/// use, and at most ``capacity`` checks running or waiting at once. Past that a check is
/// refused at once (the sign-in answers 429) instead of queueing without bound, so anonymous
/// sign-ins cannot starve the rest of the daemon.
final class PasswordChecks: Sendable {
    /// A check refused because ``capacity`` are running or waiting, or the gallery is stopping.
    struct Busy: Error {}

    let capacity: Int
    private let pool: NIOThreadPool
    private let admitted = Mutex(0)

    init(threads: Int = PasswordChecks.defaultThreads, capacity: Int = 8) {
        self.capacity = capacity
        pool = NIOThreadPool(numberOfThreads: threads)
    }

    /// One thread on a machine of up to three cores, two on a larger one: bcrypt keeps a core busy.
    static var defaultThreads: Int { System.coreCount > 3 ? 2 : 1 }

    func start() { pool.start() }

    func shutdown() async { try? await pool.shutdownGracefully() }

    /// Runs `check` on the pool, or throws ``Busy`` at once.
    func run<T: Sendable>(_ check: @escaping @Sendable () -> T) async throws(Busy) -> T {
        let entered = admitted.withLock { count in
            guard count < capacity else { return false }
            count += 1
            return true
        }
        guard entered else { throw Busy() }
        defer { admitted.withLock { $0 -= 1 } }
        do {
            return try await pool.runIfActive(check)
        } catch {
            throw Busy()
        }
    }
}
