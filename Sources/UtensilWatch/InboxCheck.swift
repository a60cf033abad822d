import Glibc
import UtensilCore

enum InboxCheck {
    /// Why `inbox` (symlinks followed) cannot be watched as a folder, or `nil` if it can.
    static func problem(with inbox: [UInt8]) -> WatchError? {
        var info = stat()
        guard RawPath(bytes: inbox).withCString({ stat($0, &info) }) == 0 else {
            let code = errno
            return code == ENOENT ? .inboxMissing(path: inbox) : .inboxUnreadable(path: inbox, errno: code)
        }
        return info.st_mode & S_IFMT == S_IFDIR ? nil : .inboxNotAFolder(path: inbox)
    }
}
