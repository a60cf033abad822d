import Glibc

/// Why a notification did not reach the service manager.
public enum SystemdNotifyError: Error, Equatable, CustomStringConvertible {
    /// `NOTIFY_SOCKET` was unset after the notifier was made.
    case notifySocketUnset
    /// `sd_notify` failed with this `errno` (for example `ECONNREFUSED`: nothing listens).
    case sendFailed(errno: Int32)

    public var description: String {
        switch self {
        case .notifySocketUnset:
            "sd_notify: NOTIFY_SOCKET is no longer set"
        case .sendFailed(let code):
            "sd_notify failed: \(String(cString: strerror(code))) (errno \(code))"
        }
    }
}
