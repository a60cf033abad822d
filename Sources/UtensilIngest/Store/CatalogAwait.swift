import Foundation

/// Runs one call of the async ``CatalogBackend`` from synchronous code, on the calling
/// thread: the bridge between the store and the ingest engine, whose operations run on
/// threads of their own (file I/O, fsync), and the catalog seam, which is async.
///
/// The call runs as a task whose executor is the calling thread itself: the thread blocks
/// until the call is done, running every piece of it that becomes ready (the first, and each
/// one after a suspension, such as a network reply of a remote catalog) as it comes. So a
/// backend that answers at once (SQLite) runs exactly where a direct call ran, with no thread
/// hop; a backend that suspends never needs a thread of Swift's cooperative pool to be free,
/// and never blocks one. Do not call it from an async context (that would block a thread of
/// the pool for the whole call): there, `await` the backend.
enum CatalogAwait {
    /// Runs `call` to completion on this thread and returns what it returned or threw.
    static func run<T: Sendable, E: Error>(_ call: @escaping @Sendable () async throws(E) -> T) throws(E) -> T {
        let thread = ThisThreadExecutor<Result<T, E>>()
        Task(executorPreference: thread) {
            do throws(E) {
                thread.finish(.success(try await call()))
            } catch {
                thread.finish(.failure(error))
            }
        }
        return try thread.runUntilFinished().get()
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
                continue
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
            condition.lock()
        }
    }
}
