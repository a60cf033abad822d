import Glibc
import UtensilCore
import UtensilStore

/// An exclusive lock on the state folder, held for the life of the process, so that two
/// utensild processes (a daemon and a `--oneshot`, say) never ingest into one catalog at once.
///
/// With a catalog of its own (SQLite) a state folder has one lock, `utensild.lock`. With a
/// shared catalog (PostgreSQL), several hosts use one state folder, each staging and
/// recovering its own work under its `host_name`: each host then locks
/// `utensild-<host_name>.lock`, which keeps a second process of the same host name (on this
/// machine, or on another that mounts the folder) out, and lets the other hosts in.
public final class StateLock: Sendable {
    private let fd: Int32

    /// Takes the lock on `state_dir/utensild.lock` (or, for `hostName` in a shared catalog,
    /// `state_dir/utensild-<host_name>.lock`), or throws naming the process holding it.
    public init(stateDirectory: String, sharedAs hostName: String? = nil) throws(StateLockError) {
        let path = RawPath(stateDirectory).appending(HostFileNames(sharedAs: hostName).lock)
        let fd = path.withCString { open($0, O_RDWR | O_CREAT | O_CLOEXEC, StatePermissions.fileMode) }
        guard fd >= 0 else { throw .cannotOpen(path: path.description, reason: String(cString: strerror(errno))) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            var buffer = [UInt8](repeating: 0, count: 32)
            let count = pread(fd, &buffer, buffer.count, 0)
            close(fd)
            let holder = count > 0 ? Int32(String(decoding: buffer[..<count], as: UTF8.self).filter(\.isNumber)) : nil
            throw .held(path: path.description, pid: holder)
        }
        let pid = Array("\(getpid())\n".utf8)
        ftruncate(fd, 0)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress!, $0.count, 0) }
        self.fd = fd
    }

    deinit { close(fd) }
}

public enum StateLockError: Error, Sendable, CustomStringConvertible {
    case cannotOpen(path: String, reason: String)
    case held(path: String, pid: Int32?)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason):
            "cannot open the lock file \(path): \(reason)"
        case .held(let path, let pid):
            "another utensild\(pid.map { " (pid \($0))" } ?? "") is already using this state folder (\(path)); stop it first, or use another state_dir (or, with a PostgreSQL catalog, another host_name)"
        }
    }
}
