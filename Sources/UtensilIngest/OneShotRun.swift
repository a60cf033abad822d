import Foundation
import Synchronization
import UtensilCore
import UtensilStore

/// `utensild --oneshot`: ingest everything in the inbox now, on `workers` threads, and report.
public struct OneShotRun: Sendable {
    public struct Summary: Sendable, Equatable {
        public var ingested = 0
        public var rejected = 0
        public var leftForRetry = 0
        public var alreadyIngested = 0
    }

    let engine: IngestEngine
    let workers: Int
    let settle: SettlePolicy

    public init(engine: IngestEngine, workers: Int, settleSeconds: Double) {
        self.engine = engine
        self.workers = max(1, workers)
        self.settle = SettlePolicy(settleSeconds: settleSeconds)
    }

    /// Ingests every drop now in the inbox; `report` is called once per drop, from worker threads.
    /// A drop that had to wait for another of the run (a photo like one being ingested, a
    /// second replacement of one utensil: ``TransientFailure/Kind/stillChanging``) is tried
    /// once more after all the others, one at a time.
    public func run(report: @Sendable (Drop, IngestOutcome) -> Void) throws -> Summary {
        let scanner = InboxScanner(settings: engine.settings)
        let drops = try scanner.scan()
        let next = Mutex(0)
        let summary = Mutex(Summary())
        let waited = Mutex<[Drop]>([])
        DispatchQueue.concurrentPerform(iterations: min(workers, max(drops.count, 1))) { _ in
            while true {
                let index = next.withLock { value -> Int in
                    defer { value += 1 }
                    return value
                }
                guard index < drops.count else { return }
                let outcome = process(drops[index], scanner: scanner)
                if case .retryLater(let failure) = outcome, failure.kind == .stillChanging {
                    waited.withLock { $0.append(drops[index]) }
                    continue
                }
                summary.withLock { $0.count(outcome) }
                report(drops[index], outcome)
            }
        }
        for drop in waited.withLock({ $0 }) {
            let outcome = process(drop, scanner: scanner)
            summary.withLock { $0.count(outcome) }
            report(drop, outcome)
        }
        return summary.withLock { $0 }
    }

    private func process(_ drop: Drop, scanner: InboxScanner) -> IngestOutcome {
        switch settle.waitUntilSettled(drop, statusOf: { drop in try scanner.status(of: drop) }) {
        case .settled(let current):
            return engine.ingest(current)
        case .vanished:
            return .vanished
        case .neverSettled:
            return engine.reject(drop, SettlePolicy.neverSettled)
        }
    }
}

extension OneShotRun.Summary {
    mutating func count(_ outcome: IngestOutcome) {
        switch outcome {
        case .ingested: ingested += 1
        case .alreadyIngested: alreadyIngested += 1
        case .rejected: rejected += 1
        case .retryLater: leftForRetry += 1
        case .vanished: break
        }
    }
}
