import Dispatch

/// Runs blocking work (file I/O, decoding, durable commits) on threads outside Swift's
/// cooperative pool, so that the watcher, the control socket and the watchdog never starve.
/// How many jobs run at once is decided by the callers (one ingest worker each).
struct BlockingPool: Sendable {
    private let queue = DispatchQueue(label: "utensild.blocking", qos: .utility, attributes: .concurrent)

    func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: body()) }
        }
    }
}
