import Foundation
import Logging
import Synchronization
import UtensilStore

/// One resource's outage as the journal tells it (``WaitCause``: the catalog, the storage):
/// once when it starts, with the failure, and once when it ends, with how long it lasted.
///
/// A try that began before the resource last answered again (one that waited through the end
/// of the outage) starts no new outage; an answer to a try that began before the outage was
/// noticed (a commit on a connection the server had not closed yet, while it stops) proves
/// nothing about now and ends nothing.
final class OutageLog: Sendable {
    private struct State {
        /// Since when drops have been left because the resource did not answer; nil while it answers.
        var since: Date?
        /// When the resource last answered again after an outage.
        var answeredAt: Date?
    }

    let cause: WaitCause
    private let state = Mutex(State())

    init(_ cause: WaitCause) {
        self.cause = cause
    }

    /// A drop was left because the resource did not answer a try that began at `triedAt`: true
    /// (and the journal says the outage started) only for the first such drop of an outage.
    func dropLeft(_ failure: TransientFailure, triedAt: Date, logger: Logger) -> Bool {
        let started = state.withLock { state in
            guard state.since == nil else { return false }
            if let answered = state.answeredAt, triedAt < answered { return false }
            state.since = Date()
            return true
        }
        if started { logger.warning(startLine(failure)) }
        return started
    }

    /// The resource answered a try that began at `triedAt`: if an outage was under way, the
    /// journal says, once, that it is over.
    func answered(triedAt: Date, logger: Logger) {
        let now = Date()
        let since = state.withLock { state -> Date? in
            guard let since = state.since, triedAt >= since else { return nil }
            state.since = nil
            state.answeredAt = now
            return since
        }
        guard let since else { return }
        logger.notice(endLine(seconds: Int(now.timeIntervalSince(since).rounded()), since: since))
    }

    private func startLine(_ failure: TransientFailure) -> Logger.Message {
        switch cause {
        case .catalog:
            "The catalog is unavailable (\(failure.message)); drops wait in the inbox and are retried with back-off until it answers, none is rejected for it"
        case .storage:
            "The storage does not answer (\(failure.message)); drops wait in the inbox and are retried as soon as it answers again, none is rejected for it"
        }
    }

    private func endLine(seconds: Int, since: Date) -> Logger.Message {
        switch cause {
        case .catalog:
            "The catalog answers again after about \(seconds) s; the drops that waited are being ingested"
        case .storage:
            "The storage answers again after about \(seconds) s (unreachable since \(since.formatted(.iso8601))); the drops that waited are being ingested"
        }
    }
}
