import ServiceLifecycle
import UtensilIngest

/// Decides that the catalog is back, and has the drops that waited for it retried at once.
///
/// While a drop waits because the catalog could not answer (PostgreSQL stopped or restarting,
/// a SQLite catalog another process keeps locked), this service writes this host's heartbeat
/// every ``probeInterval`` — a write, as a drop's commit is, through the same store. The first that the catalog takes ends the outage: the journal
/// says once that the catalog answers again (the same line an ingest would write, which is
/// then not written twice), and the scheduler moves every drop waiting for the catalog to now,
/// instead of when its back-off (up to 5 minutes) runs out. Drops waiting for another reason
/// (still being written, a full disk) keep their own schedule. While no drop waits for the
/// catalog it asks nothing. It stops after the ingest workers, once the scheduler has stopped.
struct CatalogReturnService: Service {
    /// How often the catalog is asked while drops wait for it.
    static let probeInterval = Duration.seconds(1)

    let scheduler: DropScheduler
    let engine: IngestEngine
    let heart: HostHeart

    func run() async {
        await cancelWhenGracefulShutdown {
            while await scheduler.waitForCatalogWaiters() {
                do { try await Task.sleep(for: Self.probeInterval) } catch { return }
                guard (try? await heart.beat()) != nil else { continue }
                engine.answered(.catalog)
                await scheduler.catalogAnswers()
            }
        }
        // The scheduler stops (the workers' turn to stop) before this service's turn comes:
        // returning earlier would count as finishing unexpectedly.
        try? await gracefulShutdown()
    }
}
