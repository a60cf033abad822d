import UtensilControlProtocol

/// Everything that can make a command fail, each with the exit code it maps to and a
/// one-line message that says what to do.
enum ClientError: Error, Equatable {
    /// Nothing accepts connections at the socket (missing file, stale socket, not a socket).
    case unreachable(socket: String, reason: String)
    /// `connect` was refused with `EACCES`/`EPERM`; `group` owns the socket (or, when the
    /// socket itself cannot be seen, the folder that hides it), if it could be found.
    case socketPermissionDenied(socket: String, group: String? = nil)
    /// The path does not fit in `sockaddr_un`.
    case socketPathTooLong(socket: String)
    /// The daemon did not answer in time.
    case timedOut(socket: String, seconds: Int)
    /// The daemon closed the connection (or failed it) before answering.
    case connectionLost(socket: String, reason: String)
    /// The daemon answered something this utensilctl cannot read.
    case unreadableReply(String)
    /// The daemon answered with an error.
    case failed(ControlError)
    /// `check` found the catalog inconsistent.
    case inconsistent(String)
    /// `retry --all` moved some files but not these (each already reported on stderr).
    case notAllRetried(count: Int)

    /// The process exit code: 1 failed, 64 usage, 69 unreachable, 77 permission denied.
    var exitCode: Int32 {
        switch self {
        case .unreachable, .timedOut, .connectionLost: ExitStatus.unavailable
        case .socketPermissionDenied: ExitStatus.permissionDenied
        case .socketPathTooLong: ExitStatus.usage
        case .unreadableReply, .inconsistent, .notAllRetried: ExitStatus.failure
        case .failed(let error): error.code == .permissionDenied ? ExitStatus.permissionDenied : ExitStatus.failure
        }
    }

    /// One line for standard error, without the program name.
    var message: String {
        let hint = "Is the daemon running? Check `systemctl status utensild`, or pass --socket PATH."
        return switch self {
        case .unreachable(let socket, let reason):
            "cannot reach utensild at \(socket): \(reason). \(hint)"
        case .socketPermissionDenied(let socket, let group?):
            "permission denied connecting to \(socket); run as root or as a member of the group \(group) "
                + "(`sudo usermod -aG \(group) $USER`, then log in again)."
        case .socketPermissionDenied(let socket, nil):
            "permission denied connecting to \(socket); run as root or as a member of the socket's group (see `ls -l \(socket)`)."
        case .socketPathTooLong(let socket):
            "the socket path \(socket) is longer than a Unix socket path may be (107 bytes); use a shorter one."
        case .timedOut(let socket, let seconds):
            "utensild at \(socket) did not answer within \(seconds) seconds. \(hint)"
        case .connectionLost(let socket, let reason):
            "utensild at \(socket) closed the connection (\(reason)). \(hint)"
        case .unreadableReply(let detail):
            "cannot read utensild's reply (\(detail)); are utensilctl and utensild the same version?"
        case .failed(let error):
            error.message
        case .inconsistent(let summary):
            "the catalog is inconsistent: \(summary). See the report above."
        case .notAllRetried(let count):
            "\(Formats.count(count, "rejected file")) could not be moved back (see above); fix what each line says and retry them."
        }
    }
}

/// The exit codes of the contract (sysexits.h names).
enum ExitStatus {
    static let success: Int32 = 0
    static let failure: Int32 = 1
    /// EX_USAGE.
    static let usage: Int32 = 64
    /// EX_UNAVAILABLE.
    static let unavailable: Int32 = 69
    /// EX_NOPERM.
    static let permissionDenied: Int32 = 77
}
