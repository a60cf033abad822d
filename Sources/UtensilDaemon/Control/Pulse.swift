import Foundation
import Synchronization
import UtensilStore

/// Whether a part the daemon depends on answers (the catalog: `status`, `GET /metrics` and
/// `GET /readyz`; the storage: `GET /readyz`): its question (the utensil count, or a look at
/// the storage) is asked at most once at a time and waited for at most ``deadline``. A part
/// that does not answer in time (PostgreSQL unreachable: a new connection waits up to its 10 s
/// connect time-out; a hung network file system) does not hold those answers up past that:
/// they report the last value read and since when it has not answered, while the one question
/// in flight goes on until it answers or fails.
final class Pulse: Sendable {
    /// What is known of the part now.
    enum Reading: Sendable, Equatable {
        /// It answered with this value (the catalog: the utensil count).
        case answered(count: Int)
        /// It has not answered since `since` (`detail`: its error, or that it took too long);
        /// `lastCount` is the last value it gave (0 before any).
        case unanswered(lastCount: Int, since: Date, detail: String)
    }

    /// How long a reading waits for an answer: well inside Prometheus's 10 s scrape time-out
    /// and the 2 s a health check may take.
    static let deadline = Duration.milliseconds(1500)

    private struct State {
        var asking = false
        var waiters: [Int: CheckedContinuation<Result<Int, StoreError>?, Never>] = [:]
        var nextWaiter = 0
        var lastCount = 0
        var since: Date?
    }

    private let ask: @Sendable () async -> Result<Int, StoreError>
    private let state = Mutex(State())

    /// - Parameter ask: the question, awaited in the reading task.
    init(_ ask: @escaping @Sendable () async -> Result<Int, StoreError>) {
        self.ask = ask
    }

    /// The answer within `deadline`, or what is known without it. A store error other than
    /// the catalog being unavailable is returned as it is.
    func read(deadline: Duration = Pulse.deadline) async -> Result<Reading, StoreError> {
        let answer = await withTaskGroup(of: Result<Int, StoreError>?.self) { group in
            group.addTask { await self.nextAnswer() }
            group.addTask {
                try? await Task.sleep(for: deadline)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        switch answer {
        case .success(let count)?:
            state.withLock { $0.lastCount = count; $0.since = nil }
            return .success(.answered(count: count))
        case .failure(.catalog(.unavailable(_, let detail)))?:
            return .success(unanswered(detail))
        case .failure(.fileSystem(let detail))?:
            return .success(unanswered(detail))
        case .failure(let error)?:
            return .failure(error)
        case nil:
            let seconds = Double(deadline.components.seconds) + Double(deadline.components.attoseconds) / 1e18
            return .success(unanswered("it did not answer within \(String(format: "%.1f", seconds)) s"))
        }
    }

    /// The answer to the question in flight, or to a new one; nil when cancelled first (the
    /// reading gave up: the question goes on for the next reading).
    private func nextAnswer() async -> Result<Int, StoreError>? {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let startsQuestion = state.withLock { state -> Bool? in
                    // Cancelled before waiting: the handler below found nothing to resume.
                    if Task.isCancelled { return nil }
                    state.waiters[id] = continuation
                    defer { state.asking = true }
                    return !state.asking
                }
                switch startsQuestion {
                case nil: continuation.resume(returning: nil)
                case true?: startQuestion()
                case false?: break
                }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: nil)
        }
    }

    /// Asks, then hands the answer to every reading still waiting. One question at a time: a
    /// part that does not answer never piles up blocked threads, however often it is read.
    private func startQuestion() {
        Task {
            let answer = await ask()
            let waiters = state.withLock { state in
                defer {
                    state.waiters = [:]
                    state.asking = false
                }
                return Array(state.waiters.values)
            }
            for waiter in waiters { waiter.resume(returning: answer) }
        }
    }

    private func unanswered(_ detail: String, now: Date = Date()) -> Reading {
        state.withLock { state in
            let since = state.since ?? now
            state.since = since
            return .unanswered(lastCount: state.lastCount, since: since, detail: detail)
        }
    }
}
