import Foundation
import ServiceLifecycle
import UtensilIngest

/// Decides that the storage (a bucket) is back, and has the drops that waited for it retried
/// at once — as ``CatalogReturnService`` does for the catalog.
///
/// While a drop waits because the storage did not answer, this service asks it every
/// ``probeInterval`` (``Pulse``: one question at a time, each request bounded by
/// `probeTimeoutSeconds`). The first answer ends the outage: the journal says once that the
/// storage answers again and since when it did not, and the scheduler moves every drop waiting
/// for it to now, instead of when its back-off (up to 5 minutes) runs out. While no drop waits
/// for the storage it asks nothing. It stops after the ingest workers.
struct StorageReturnService: Service {
    /// How often the storage is asked while drops wait for it.
    static let probeInterval = Duration.seconds(1)

    let scheduler: DropScheduler
    let engine: IngestEngine
    /// The storage's pulse (the one `/readyz` and `status` read).
    let pulse: Pulse

    func run() async {
        await cancelWhenGracefulShutdown {
            while await scheduler.waitForStorageWaiters() {
                do { try await Task.sleep(for: Self.probeInterval) } catch { return }
                let asked = Date()
                guard case .success(.answered) = await pulse.read() else { continue }
                engine.answered(.storage, triedAt: asked)
                await scheduler.storageAnswers()
            }
        }
        // The scheduler stops (the workers' turn to stop) before this service's turn comes:
        // returning earlier would count as finishing unexpectedly.
        try? await gracefulShutdown()
    }
}
