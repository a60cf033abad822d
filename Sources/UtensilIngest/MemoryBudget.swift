import CUtensilSupport
import Glibc

/// Bounds the bytes that drops being ingested hold in memory at once, across all workers.
///
/// A drop is read whole (what is stored is exactly what was hashed and decoded), so two
/// workers on two 24 MP PNGs would hold two 40–70 MB files. A worker whose drop would take
/// the total above the budget waits until others release theirs; a drop larger than the
/// whole budget still goes ahead, alone, so nothing waits forever.
public final class MemoryBudget: @unchecked Sendable {  // `held` is guarded by `changed`'s mutex
    /// The budget every engine shares unless told otherwise.
    public static let shared = MemoryBudget(bytes: 64 << 20)

    public let bytes: Int
    private var held = 0
    private let changed = Condition()

    public init(bytes: Int) {
        self.bytes = bytes
    }

    /// For a long-running process: memory that held a photo goes back to the system when the
    /// photo is done with, so that the daemon's footprint at rest does not keep a burst's peak.
    public static func returnLargeAllocationsToTheSystem() {
        utensil_return_large_allocations()
    }

    /// Blocks the calling (non-cooperative) thread until `count` bytes fit, then holds them.
    func acquire(_ count: Int) {
        changed.lock()
        defer { changed.unlock() }
        while held > 0 && held + count > bytes {
            changed.wait()
        }
        held += count
    }

    func release(_ count: Int) {
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
