import UtensilMetrics
import UtensilStore

extension DaemonMetrics {
    /// Counts one drop's outcome: ingested, rejected (by reason), or left for a retry because
    /// the catalog failed; `duration` from a worker taking the drop to the outcome.
    func record(_ outcome: IngestOutcome, after duration: Duration) {
        switch outcome {
        case .ingested: recordIngested(after: duration)
        case .rejected(let rejection, _): recordRejected(reason: rejection.reason.rawValue, after: duration)
        case .retryLater(let failure) where failure.kind == .catalogUnavailable: recordCatalogError()
        case .retryLater, .alreadyIngested, .vanished: break
        }
    }
}
