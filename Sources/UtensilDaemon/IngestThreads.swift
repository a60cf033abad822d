import Dispatch

/// The ingest engine's bridge out of async code: runs the engine's blocking work (reading,
/// hashing, decoding and encoding a drop, the group commit's `fsync`s and transaction,
/// `rethumb`, the inbox scans) on threads outside Swift's cooperative pool, so that a burst
/// never starves the watcher, the control socket, the web gallery or the watchdog. How many
/// jobs run at once is decided by the callers (one ingest worker each, one group commit).
///
/// Only the engine's callers use it (the ingest workers, `GroupCommitter`, `InboxFeeder`);
/// every other door awaits the store in its own task. On these threads the engine reaches the
/// async catalog and storage through `CatalogAwait`.
struct IngestThreads: Sendable {
    private let queue = DispatchQueue(label: "utensild.ingest", qos: .utility, attributes: .concurrent)

    func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: body()) }
        }
    }
}
