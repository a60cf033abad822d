import Foundation
import Logging
import Synchronization
import UtensilCatalogModel
import UtensilConfig
import UtensilDaemon
import UtensilIngest
import UtensilStore

/// `utensild --oneshot`: reconcile, ingest the inbox once, print a line per drop and a summary.
struct OneShotCommand {
    let configuration: UtensilConfiguration
    let logger: Logger
    /// Opens the backends the configuration chose (``CatalogSupport/withBackends(_:environment:logger:waiting:_:)``).
    let openBackends: Backends.Opener

    /// Runs ``run()`` on a thread of its own (its workers block on files and on the catalog,
    /// which must not hold up Swift's cooperative threads, where the PostgreSQL pool runs).
    func runOnItsOwnThread() async throws -> Int32 {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try run() }) }
        }
    }

    /// Returns the exit code: 0, or 1 if a drop was left for retry.
    func run() throws -> Int32 {
        let settings = IngestSettings(configuration)
        let lock = try StateLock(stateDirectory: configuration.stateDir, sharedAs: configuration.sharedHostName)
        defer { withExtendedLifetime(lock) {} }
        let backends = try openBackends(settings, logger)
        let engine = IngestEngine(
            store: try StartUp.prepare(settings: settings, catalog: backends.catalog, storage: backends.storage, logger: logger),
            memory: MemoryBudget(bytes: configuration.memoryBudget))
        let run = OneShotRun(
            engine: engine, workers: configuration.effectiveWorkers, settleSeconds: configuration.settleSeconds)
        let output = Mutex(())
        let summary = try run.run { drop, outcome in
            let line = Self.line(drop, outcome)
            output.withLock { _ in print(line) }
        }
        print(
            "\(summary.ingested) ingested, \(summary.rejected) rejected, \(summary.leftForRetry) left for retry"
                + (summary.alreadyIngested > 0 ? ", \(summary.alreadyIngested) finished from an interrupted run" : ""))
        return summary.leftForRetry > 0 ? 1 : 0
    }

    static func line(_ drop: Drop, _ outcome: IngestOutcome) -> String {
        switch outcome {
        case .ingested(let record): "ingested  \(drop) → \(record.name) (\(record.id.uuidString))"
        case .alreadyIngested(let record): "ingested  \(drop) → \(record.name) (\(record.id.uuidString), finished from an interrupted run)"
        case .rejected(let rejection, _): "rejected  \(drop): \(rejection.reason.rawValue) — \(rejection.message)"
        case .retryLater(let failure): "retry     \(drop): \(failure.message)"
        case .vanished: "gone      \(drop)"
        }
    }
}
