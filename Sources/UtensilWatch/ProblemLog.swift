import Synchronization

/// The last problem a running watcher met without stopping (e.g. the watch limit reached for a
/// new folder), shared between its thread and its owner.
final class ProblemLog: Sendable {
    private let last = Mutex<WatchError?>(nil)

    func record(_ error: WatchError) { last.withLock { $0 = error } }

    var latest: WatchError? { last.withLock { $0 } }
}
