import Foundation

/// The one bridge from threads of their own into the async store and its seams: runs an async
/// call (of the ``CatalogBackend``, the ``RenditionStorage``, or the store's own async API)
/// from synchronous code, on the calling thread.
///
/// Why it exists: the ingest engine's CPU work (reading, hashing, decoding, encoding, `fsync`)
/// runs on `workers` threads outside Swift's cooperative pool, so that a burst never starves
/// the watcher, the control socket or the watchdog, and so that a drop's duplicate look-up
/// overlaps its decode (``start(_:)``). Everything else — the control handler, the web routes,
/// the heartbeat, the trash purger, `check`, `retry`, backup — awaits the store in its own
/// task and never comes here. Only the engine's threads do (the daemon's ingest threads,
/// `--oneshot`'s own): the store's operations that the engine drives (admission, the commit,
/// `rethumb`) and start-up recovery, which runs there before any ingest, call their seams, and
/// take the store's locks and gate (``ChangeLock``, ``SnapshotGate``), through it.
///
/// A call runs as a task whose executor is the calling thread itself: the thread blocks
/// until the call is done, running every piece of it that becomes ready (the first, and each
/// one after a suspension, such as a network reply of a remote catalog) as it comes. So a
/// backend that answers at once (SQLite) runs exactly where a direct call ran, with no thread
/// hop; a backend that suspends never blocks a thread of Swift's cooperative pool (PostgreSQL
/// runs each call in a task of its own, raced against its answer deadline, whose short steps
/// between replies run on that pool). Do not call it from an async context (that would block
/// a thread of the pool for the whole call): there, `await` the store.
enum CatalogAwait {
    /// Runs `call` to completion on this thread and returns what it returned or threw.
    static func run<T: Sendable, E: Error>(_ call: @escaping @Sendable () async throws(E) -> T) throws(E) -> T {
        try start(call).result()
    }

    /// Runs `call` on this thread until it first waits (a remote catalog: once its request is
    /// sent) and returns; ``CatalogCallInFlight/result()`` runs the rest on this thread. The
    /// thread is free meanwhile for other work, such as decoding while the server answers. A
    /// call that never waits (SQLite) is finished when this returns.
    static func start<T: Sendable, E: Error>(_ call: @escaping @Sendable () async throws(E) -> T) -> CatalogCallInFlight<T, E> {
        let thread = ThisThreadExecutor<Result<T, E>>()
        Task(executorPreference: thread) {
            do throws(E) {
                thread.finish(.success(try await call()))
            } catch {
                thread.finish(.failure(error))
            }
        }
        thread.runReadyJobs()
        return CatalogCallInFlight(thread)
    }
}

/// A catalog call begun by ``CatalogAwait/start(_:)`` on this thread. Its answer is only
/// taken in by this thread, in ``result()``; one never asked for is waited for when the
/// handle goes away, so that no call is left half done.
final class CatalogCallInFlight<T: Sendable, E: Error> {
    private let thread: ThisThreadExecutor<Result<T, E>>
    private var outcome: Result<T, E>?

    fileprivate init(_ thread: ThisThreadExecutor<Result<T, E>>) {
        self.thread = thread
    }

    /// Whether the call had finished by the time ``CatalogAwait/start(_:)`` returned (its
    /// backend never waited), so that ``result()`` will not block.
    var isAnswered: Bool { outcome != nil || thread.isFinished }

    /// Runs the rest of the call on this thread, waiting for it as needed; what it returned or threw.
    func result() throws(E) -> T {
        if outcome == nil { outcome = thread.runUntilFinished() }
        return try outcome!.get()
    }

    deinit {
        if outcome == nil { _ = thread.runUntilFinished() }
    }
}

/// A task executor that runs its jobs on the one thread waiting in ``runUntilFinished()``;
/// once that has returned, any job still enqueued (a task the call left behind, which inherits
/// this executor) runs on a global queue instead of being lost.
private final class ThisThreadExecutor<Outcome: Sendable>: TaskExecutor, @unchecked Sendable {
    // All three are guarded by `condition`.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var outcome: Outcome?
    private var drained = false

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        if drained {
            condition.unlock()
            DispatchQueue.global().async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
            return
        }
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Called by the task as its last step.
    func finish(_ outcome: Outcome) {
        condition.lock()
        self.outcome = outcome
        condition.signal()
        condition.unlock()
    }

    /// Whether the task has finished.
    var isFinished: Bool {
        condition.lock()
        defer { condition.unlock() }
        return outcome != nil
    }

    /// Runs the jobs enqueued so far, and those they enqueue at once, without waiting for more.
    func runReadyJobs() {
        condition.lock()
        runQueuedJobs()
        condition.unlock()
    }

    /// Runs queued jobs until none is left or the task has finished; called, and returns,
    /// with `condition` locked (it is unlocked while each job runs).
    private func runQueuedJobs() {
        while outcome == nil, !jobs.isEmpty {
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
            condition.lock()
        }
    }

    /// Runs the jobs as they come until the task has finished; returns its outcome.
    func runUntilFinished() -> Outcome {
        condition.lock()
        while true {
            if let outcome {
                drained = true
                let left = jobs
                jobs = []
                condition.unlock()
                for job in left {
                    DispatchQueue.global().async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
                }
                return outcome
            }
            if jobs.isEmpty {
                condition.wait()
            } else {
                runQueuedJobs()
            }
        }
    }
}
