import CUtensilSupport
import Glibc
import UtensilCore
import UtensilStorage

/// Records which drops are being decoded, in a file of the state folder mapped into memory,
/// so that when the process dies during a decode — a fault in a decoder, an abort, a SIGKILL,
/// the OOM killer — the next start knows which drop it was and can count a decoder crash for
/// it: a poison file is quarantined as `decoder-crash` after its second crash instead of
/// killing the daemon forever under `Restart=`. Marking a decode costs two stores to memory,
/// no system call. A fault on a decoding thread blames only that thread's drop; a signal from
/// outside blames every drop then being decoded; a death no handler sees blames them only when
/// systemd says it was the OOM killer, the watchdog or a stop time-out (``LastStop``).
public enum DecoderCrashGuard {
    /// Maps `slotsFile` (made if missing) and installs the fatal-signal handlers. Once per
    /// process, before ``UtensilStore/reconcile()`` reads what an earlier process left.
    public static func install(slotsFile: RawPath) throws(SystemError) {
        let fd = slotsFile.withCString { open($0, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, StatePermissions.fileMode) }
        guard fd >= 0 else { throw SystemError("open", slotsFile) }
        defer { close(fd) }  // The mapping keeps the file.
        guard utensil_crashguard_install(fd) == 0 else { throw SystemError("map", slotsFile) }
    }

    /// Runs `body` (synchronous decoding) marked as decoding the drop `key`.
    package static func decoding<T>(key: String, _ body: () throws -> T) rethrows -> T {
        key.withCString { utensil_crashguard_enter($0) }
        defer { utensil_crashguard_leave() }
        return try body()
    }

    /// A decode that was under way when an earlier process died.
    struct InterruptedDecode {
        let slot: Int32
        /// The drop's key (`FileStatus.versionKey`).
        let key: String
        /// A fatal-signal handler blamed it (a fault on its thread, or a signal sent from
        /// outside); false when the process died without a handler running (SIGKILL, the OOM
        /// killer, a power cut), where ``LastStop`` decides.
        let blamed: Bool

        /// Clears its slot: call once the crash is recorded, so that a failure to record it
        /// leaves it for the next start.
        func forget() { utensil_crashguard_forget(slot) }
    }

    /// The decodes under way when an earlier process died.
    static func interruptedDecodes() -> [InterruptedDecode] {
        (0..<utensil_crashguard_slot_count()).compactMap { slot in
            var blamed: Int32 = 0
            return utensil_crashguard_interrupted(slot, &blamed).map {
                InterruptedDecode(slot: slot, key: String(cString: $0), blamed: blamed != 0)
            }
        }
    }
}
