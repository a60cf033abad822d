import Foundation
import ServiceLifecycle
import UtensilIngest

/// Decides that what drops wait for (``WaitCause``: the catalog, the storage) is back, and has
/// the drops that waited for it retried at once. One runs for each cause; they differ only in
/// how they ask (``catalog(scheduler:engine:heart:)``, ``storage(scheduler:engine:pulse:)``).
///
/// While a drop waits because its cause did not answer, the service asks it every
/// ``probeInterval``. The first answer ends the outage: the journal says once that it answers
/// again (the same line an ingest would write, which is then not written twice), and the
/// scheduler moves every drop waiting for it to now, instead of when its back-off (up to 5
/// minutes) runs out. Drops waiting for another reason (still being written, a full disk, the
/// other cause) keep their own schedule. While no drop waits for it, it asks nothing. It stops
/// after the ingest workers, once the scheduler has stopped.
struct ReturnService: Service {
    /// How often the cause is asked while drops wait for it.
    static let probeInterval = Duration.seconds(1)

    let cause: WaitCause
    let scheduler: DropScheduler
    let engine: IngestEngine
    /// Asks once: nil when there was no answer, else when the answered question was asked —
    /// each probe counts from before its question, as an ingest's try does
    /// (``IngestEngine/answered(_:triedAt:)``: an answer to a try begun before the outage was
    /// noticed ends nothing).
    let probe: @Sendable () async -> Date?

    func run() async {
        await cancelWhenGracefulShutdown {
            while await scheduler.waitForWaiters(cause) {
                do { try await Task.sleep(for: Self.probeInterval) } catch { return }
                guard let triedAt = await probe() else { continue }
                engine.answered(cause, triedAt: triedAt)
                await scheduler.answers(cause)
            }
        }
        // The scheduler stops (the workers' turn to stop) before this service's turn comes:
        // returning earlier would count as finishing unexpectedly.
        try? await gracefulShutdown()
    }
}

extension ReturnService {
    /// For drops that waited because the catalog could not answer (PostgreSQL stopped or
    /// restarting, a SQLite catalog another process keeps locked): asks by writing this host's
    /// heartbeat — a write, as a drop's commit is, through the same store.
    static func catalog(scheduler: DropScheduler, engine: IngestEngine, heart: HostHeart) -> ReturnService {
        ReturnService(cause: .catalog, scheduler: scheduler, engine: engine) {
            let asked = Date()
            guard (try? await heart.beat()) != nil else { return nil }
            return asked
        }
    }

    /// For drops that waited because the storage (a bucket) did not answer: asks its ``Pulse``
    /// (the one `/readyz` and `status` read: one question at a time, each request bounded by
    /// `probeTimeoutSeconds`); the journal's end line says since when it did not answer.
    static func storage(scheduler: DropScheduler, engine: IngestEngine, pulse: Pulse) -> ReturnService {
        ReturnService(cause: .storage, scheduler: scheduler, engine: engine) {
            let asked = Date()
            guard case .success(.answered) = await pulse.read() else { return nil }
            return asked
        }
    }
}
