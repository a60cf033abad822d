import Glibc
import Logging
import Synchronization

/// The descriptors the gallery leaves to the rest of the daemon (``WebLimits/descriptorsKeptFree``):
/// before it takes a connection or opens an upload's file it counts the process's open
/// descriptors (`/proc/self/fd`, whoever opened them) against its soft `RLIMIT_NOFILE`, and
/// declines while no more than the reserve is free. Declining is logged at most once a minute.
final class DescriptorReserve: Sendable {
    let kept: Int
    private let logger: Logger
    private let lastWarning = Mutex<ContinuousClock.Instant?>(nil)

    init(kept: Int, logger: Logger) {
        self.kept = kept
        self.logger = logger
    }

    /// Whether the gallery may take one more descriptor for `what` (logged when it may not).
    func allows(_ what: @autoclosure () -> String) -> Bool {
        guard let open = Self.openDescriptors() else { return refuse(what(), open: nil) }
        let limit = Self.limit()
        guard limit - open > kept else { return refuse(what(), open: open, limit: limit) }
        return true
    }

    private func refuse(_ what: String, open: Int?, limit: Int = DescriptorReserve.limit()) -> Bool {
        let now = ContinuousClock.now
        let due = lastWarning.withLock { last -> Bool in
            guard last.map({ now - $0 >= .seconds(60) }) ?? true else { return false }
            last = now
            return true
        }
        if due {
            logger.warning(
                "The web gallery declined \(what): \(open.map(String.init) ?? "nearly all") of the process's \(limit) descriptors are open, and \(kept) stay for the control socket, the watcher and the ingest; raise LimitNOFILE or lower the load")
        }
        return false
    }

    /// The process's soft descriptor limit.
    static func limit() -> Int {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        return Int(clamping: min(limit.rlim_cur, rlim_t(Int.max / 2)))
    }

    /// Descriptors open in this process now (nil if they cannot be counted, which is itself
    /// a sign that none is left).
    static func openDescriptors() -> Int? {
        guard let folder = opendir("/proc/self/fd") else { return nil }
        defer { closedir(folder) }
        var count = 0
        while let entry = readdir(folder) {
            if entry.pointee.d_name.0 != 0x2E { count += 1 }  // Not `.` or `..`.
        }
        return count - 1  // The folder's own descriptor.
    }
}
