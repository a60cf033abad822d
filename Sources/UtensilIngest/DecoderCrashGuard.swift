import CUtensilSupport
import Glibc
import UtensilCore

/// Records which drop was being decoded when the process died of a fatal signal, so that a
/// poison file is quarantined as `decoder-crash` after its second crash instead of killing
/// the daemon forever. An external SIGKILL cannot be caught and is never counted.
public enum DecoderCrashGuard {
    /// Installs the fatal-signal handlers, appending to `crashLog`. Once per process.
    public static func install(crashLog: RawPath) throws(SystemError) {
        let fd = crashLog.withCString { open($0, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, StatePermissions.fileMode) }
        guard fd >= 0 else { throw SystemError("open", crashLog) }
        utensil_crashguard_install(fd)
    }

    /// Runs `body` (synchronous decoding) marked as decoding the drop `key`.
    static func decoding<T>(key: String, _ body: () throws -> T) rethrows -> T {
        key.withCString { utensil_crashguard_enter($0) }
        defer { utensil_crashguard_leave() }
        return try body()
    }

    /// The keys the crash log holds (one line each); the log is emptied.
    static func takeRecordedCrashes(crashLog: RawPath) -> [String] {
        let fd = crashLog.withCString { open($0, O_RDWR | O_CLOEXEC) }
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var status = stat()
        guard Glibc.fstat(fd, &status) == 0, status.st_size > 0 else { return [] }
        let size = min(Int(status.st_size), 1 << 20)
        guard let bytes = try? FileOps.readAll(fd, size: size, path: crashLog) ?? nil else { return [] }
        ftruncate(fd, 0)
        fsync(fd)
        return bytes.split(separator: UInt8(ascii: "\n")).map { $0.lossyString }
    }
}
