import PostgresNIO
import Synchronization
import UtensilCatalogModel

/// A bound on how long a catalog call may run once it holds a connection.
///
/// ``PostgresLeaseDeadline`` bounds the wait for a connection only. A call on a connection
/// that never answers — a server that hangs, a network cut without a reset, or a statement
/// sent on a connection while the server's restart closed it (postgres-nio 1.33 may then
/// never complete it) — would wait for ever, and with it the drop it ingests (in flight for
/// good, never retried) or the daemon's shutdown. So a call still unanswered ``seconds``
/// after it got its connection is given up: the connection is closed (the server ends its
/// session and rolls back its transaction) and the call throws
/// ``CatalogError/unavailable(code:detail:)``, as for any outage: a drop waits and is retried,
/// never rejected for it. Whether a write that was given up took effect is then unknown, as
/// when the server crashes under it.
///
/// The call runs in a task of its own so that the caller is answered even when the call
/// cannot be stopped (an await postgres-nio never completes cannot be cancelled); the
/// caller's cancellation is passed on to it, and answers the caller at once with a
/// `CancellationError` (whether a write then took effect is unknown, as above).
struct PostgresAnswerDeadline: Sendable {
    /// How long a call may run on its connection; nil for no bound (a snapshot of the whole
    /// catalog, a load, the integrity check: their time grows with the catalog).
    let seconds: Int64?

    /// No bound.
    static let none = PostgresAnswerDeadline(seconds: nil)

    /// Runs `call`, which calls ``PostgresAnswerWatch/leased(_:)`` with its connection once it
    /// holds one; throws ``CatalogError/unavailable(code:detail:)`` when it has not returned
    /// ``seconds`` after that.
    func run<T: Sendable>(_ call: @escaping @Sendable (PostgresAnswerWatch) async throws -> T) async throws -> T {
        guard let seconds else { return try await call(PostgresAnswerWatch { _ in }) }
        let race = AnswerRace<T>(seconds: seconds)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                race.begin(continuation, call)
            }
        } onCancel: {
            race.cancel()
        }
    }
}

/// Told by a call when it holds its connection: the answer deadline starts then.
struct PostgresAnswerWatch: Sendable {
    fileprivate let onLease: @Sendable (PostgresConnection) -> Void

    func leased(_ connection: PostgresConnection) { onLease(connection) }
}

/// One call raced against its answer deadline: whichever ends first answers the caller, once.
private final class AnswerRace<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var call: Task<Void, Never>?
        var timer: Task<Void, Never>?
        var cancelled = false
    }

    private let seconds: Int64
    private let state = Mutex(State())

    init(seconds: Int64) {
        self.seconds = seconds
    }

    func begin(_ continuation: CheckedContinuation<T, any Error>, _ body: @escaping @Sendable (PostgresAnswerWatch) async throws -> T) {
        state.withLock { $0.continuation = continuation }
        let watch = PostgresAnswerWatch { [self] connection in startTimer(connection) }
        let call = Task {
            do {
                finish(.success(try await body(watch)))
            } catch {
                finish(.failure(error))
            }
        }
        let cancelled = state.withLock { state in
            state.call = call
            return state.cancelled
        }
        if cancelled {
            call.cancel()
            finish(.failure(CancellationError()))
        }
    }

    /// The caller was cancelled: so is the call, and the caller is answered at once (a call
    /// that cannot be stopped must not hold up a shutdown past its bound).
    func cancel() {
        let call = state.withLock { state in
            state.cancelled = true
            return state.call
        }
        call?.cancel()
        finish(.failure(CancellationError()))
    }

    private func startTimer(_ connection: PostgresConnection) {
        let seconds = seconds
        let timer = Task {
            do { try await Task.sleep(for: .seconds(seconds)) } catch { return }
            // Closed without waiting: a connection in that state may not finish closing either.
            Task { try? await connection.close() }
            finish(.failure(CatalogError.unavailable(code: -1, detail: "PostgreSQL did not answer within \(seconds) seconds")))
        }
        let answered = state.withLock { state in
            state.timer = timer
            return state.continuation == nil
        }
        if answered { timer.cancel() }
    }

    private func finish(_ result: Result<T, any Error>) {
        let (continuation, timer, call) = state.withLock { state in
            defer { state.continuation = nil }
            return (state.continuation, state.timer, state.call)
        }
        guard let continuation else { return }
        timer?.cancel()
        if case .failure = result { call?.cancel() }
        continuation.resume(with: result)
    }
}
