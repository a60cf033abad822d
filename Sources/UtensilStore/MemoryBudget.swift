import CUtensilSupport
import Glibc

/// Bounds the memory that drops being ingested hold at once, across all workers
/// (`memory_budget`): each drop's bytes (read whole: what is stored is exactly what was hashed
/// and decoded) and what its decoder allocates, known from the header before decoding (a
/// 133 KB interlaced PNG may decode into 400 MB).
///
/// A worker whose drop would take the total above the budget waits until others release
/// theirs; the engine rejects a drop that needs more than the whole budget, and one that
/// does go ahead alone, so nothing waits forever.
public final class MemoryBudget: @unchecked Sendable {  // `held` is guarded by `changed`'s mutex
    /// The default `memory_budget`, well under the unit's `MemoryMax=1G`.
    public static let defaultBytes = 512 << 20
    /// The budget every engine shares unless told otherwise.
    public static let shared = MemoryBudget(bytes: defaultBytes)

    public let bytes: Int
    private var held = 0
    private var waits = 0
    private let changed = Condition()

    public init(bytes: Int) {
        self.bytes = bytes
    }

    /// For a long-running process: memory freed by one photo is kept for the next (a burst
    /// reuses its buffers instead of faulting in fresh pages for each photo) until
    /// ``returnFreeMemoryToTheSystem()`` gives it back, which the daemon does whenever its
    /// ingest workers go idle: its footprint at rest does not keep a burst's peak.
    public static func keepFreedMemoryUntilReturned() {
        utensil_keep_freed_memory_until_trimmed()
    }

    /// Gives the system back the free pages of glibc's heaps: when the ingest workers go idle,
    /// and after start-up reconciliation and `check`, which hold an entry per file for a moment.
    public static func returnFreeMemoryToTheSystem() {
        utensil_return_free_memory()
    }

    /// The bytes held right now, and how many times a drop had to wait for its share since start
    /// (for the metrics).
    public var usage: (heldBytes: Int, waits: Int) {
        changed.lock()
        defer { changed.unlock() }
        return (held, waits)
    }

    /// Blocks the calling (non-cooperative) thread until `count` bytes fit, then holds them.
    package func acquire(_ count: Int) {
        changed.lock()
        defer { changed.unlock() }
        if held > 0 && held + count > bytes { waits += 1 }
        while held > 0 && held + count > bytes {
            changed.wait()
        }
        held += count
    }

    /// Holding `holding` bytes, holds `more` as well: at once if they fit; otherwise it lets go
    /// of what it holds while it waits for the total, so that two workers never wait on each other.
    package func grow(holding: Int, by more: Int) {
        changed.lock()
        defer { changed.unlock() }
        if held + more <= bytes {
            held += more
            return
        }
        held -= holding
        changed.broadcast()
        if held > 0 && held + holding + more > bytes { waits += 1 }
        while held > 0 && held + holding + more > bytes {
            changed.wait()
        }
        held += holding + more
    }

    package func release(_ count: Int) {
        changed.lock()
        held -= count
        changed.broadcast()
        changed.unlock()
    }
}

/// A pthread mutex and condition variable, for blocking worker threads.
private final class Condition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        condition.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }
    func wait() { pthread_cond_wait(condition, mutex) }
    func broadcast() { pthread_cond_broadcast(condition) }
}
