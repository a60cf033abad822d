import Glibc
import UtensilCore

/// Why watching could not start or went wrong; each message says what to do about it.
public enum WatchError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `inotify_init1` failed for a reason other than the instance limit.
    case inotifyUnavailable(errno: Int32)
    /// `inotify_init1` failed with EMFILE: `fs.inotify.max_user_instances` is exhausted.
    case tooManyInotifyInstances
    /// `inotify_add_watch` failed with ENOSPC or ENOMEM: `fs.inotify.max_user_watches` is exhausted.
    case watchLimitReached(path: [UInt8])
    /// A folder below the inbox could not be opened or watched for want of descriptors or
    /// memory (or, without `/proc`, because its path is longer than `PATH_MAX`).
    case folderNotWatched(path: [UInt8], errno: Int32)
    /// The inbox folder does not exist.
    case inboxMissing(path: [UInt8])
    /// The inbox path exists but is not a folder.
    case inboxNotAFolder(path: [UInt8])
    /// The inbox cannot be read or watched (permissions, I/O error).
    case inboxUnreadable(path: [UInt8], errno: Int32)
    /// Some other system call failed.
    case systemCallFailed(call: String, errno: Int32)

    public var description: String {
        switch self {
        case .inotifyUnavailable(let code):
            return "inotify is not available (\(String(cString: strerror(code)))): set watch = \"poll\""
        case .tooManyInotifyInstances:
            return "too many inotify instances for this user: raise fs.inotify.max_user_instances "
                + "(sysctl -w fs.inotify.max_user_instances=1024) or set watch = \"poll\""
        case .watchLimitReached(let path):
            return "inotify watch limit reached while watching \(path.lossyString): raise "
                + "fs.inotify.max_user_watches (sysctl -w fs.inotify.max_user_watches=524288, and "
                + "persist it in /etc/sysctl.d/) or set watch = \"poll\"; until then drops in folders not watched "
                + "are found by the rescan every rescan_seconds"
        case .folderNotWatched(let path, let code):
            let remedy = code == ENAMETOOLONG
                ? "mount /proc for the daemon"
                : "raise the daemon's descriptor limit (LimitNOFILE=) or give it more memory"
            return "the folder \(path.lossyString) cannot be watched (\(String(cString: strerror(code)))): "
                + "\(remedy); until then drops in it are found by the rescan every rescan_seconds"
        case .inboxMissing(let path):
            return "the inbox \(path.lossyString) does not exist: create it or fix the inbox setting"
        case .inboxNotAFolder(let path):
            return "the inbox \(path.lossyString) is not a folder: fix the inbox setting"
        case .inboxUnreadable(let path, let code):
            return "the inbox \(path.lossyString) cannot be watched (\(String(cString: strerror(code)))): "
                + "give the daemon's user read and search permission on it"
        case .systemCallFailed(let call, let code):
            return "\(call) failed: \(String(cString: strerror(code)))"
        }
    }
}
