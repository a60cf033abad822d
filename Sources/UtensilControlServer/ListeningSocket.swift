import Glibc

/// The control socket's listening descriptor: taken from systemd (socket activation), or
/// bound here with the configured mode, replacing a stale socket from a crashed run but
/// refusing to start beside a live daemon.
public struct ListeningSocket: Sendable {
    public let descriptor: Int32
    public let path: String
    /// Whether systemd passed the socket in (`LISTEN_FDS`), in which case it is not ours to remove.
    public let isActivated: Bool

    /// The descriptor systemd passed as `control` (``SocketActivation``), or the first one
    /// when the descriptors are not named.
    public static func fromSystemd(environment: [String: String], path: String) -> ListeningSocket? {
        SocketActivation.descriptor(named: "control", environment: environment, firstIfUnnamed: true).map {
            ListeningSocket(descriptor: $0, path: path, isActivated: true)
        }
    }

    /// Binds `path` with permission bits `mode` (created under a umask, so it is never
    /// briefly wider), in a folder that must not be world-writable.
    public static func bind(path: String, mode: mode_t) throws(ControlSocketError) -> ListeningSocket {
        let folder = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        var folderStatus = stat()
        guard stat(folder.isEmpty ? "/" : folder, &folderStatus) == 0 else {
            throw .folderMissing(folder: folder)
        }
        if folderStatus.st_mode & S_IWOTH != 0 && folderStatus.st_mode & S_ISVTX == 0 {
            throw .folderWorldWritable(folder: folder)
        }
        try removeStaleSocket(at: path)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .system(operation: "socket", path: path, code: errno) }
        var address = try socketAddress(path)
        let previousMask = umask(~mode & 0o777)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        let bindError = errno
        umask(previousMask)
        guard bound == 0 else {
            close(fd)
            throw .system(operation: "bind", path: path, code: bindError)
        }
        guard chmod(path, mode) == 0, listen(fd, 128) == 0 else {
            let code = errno
            close(fd)
            unlink(path)
            throw .system(operation: "listen on", path: path, code: code)
        }
        return ListeningSocket(descriptor: fd, path: path, isActivated: false)
    }

    /// A socket file nobody answers on is left over from a crash: remove it. One that answers
    /// belongs to a running daemon: refuse.
    static func removeStaleSocket(at path: String) throws(ControlSocketError) {
        var status = stat()
        guard lstat(path, &status) == 0 else { return }
        guard status.st_mode & S_IFMT == S_IFSOCK else { throw .notASocket(path: path) }
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard probe >= 0 else { throw .system(operation: "socket", path: path, code: errno) }
        defer { close(probe) }
        var address = try socketAddress(path)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(probe, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        if connected == 0 { throw .alreadyServed(path: path) }
        unlink(path)
    }

    static func socketAddress(_ path: String) throws(ControlSocketError) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else { throw .pathTooLong(path: path) }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        return address
    }

    /// Removes the socket file (when it was bound here).
    public func removeFile() {
        if !isActivated { unlink(path) }
    }
}

/// Why the control socket cannot be served.
public enum ControlSocketError: Error, Sendable, Equatable, CustomStringConvertible {
    case alreadyServed(path: String)
    case notASocket(path: String)
    case folderMissing(folder: String)
    case folderWorldWritable(folder: String)
    case pathTooLong(path: String)
    case system(operation: String, path: String, code: Int32)

    public var description: String {
        switch self {
        case .alreadyServed(let path):
            "another utensild is already answering on \(path); stop it first (systemctl stop utensild)"
        case .notASocket(let path):
            "\(path) exists and is not a socket; remove it or choose another control_socket"
        case .folderMissing(let folder):
            "the control socket's folder \(folder) does not exist; create it (systemd's RuntimeDirectory= does)"
        case .folderWorldWritable(let folder):
            "the control socket's folder \(folder) is writable by everyone; use a folder only utensild can write"
        case .pathTooLong(let path):
            "the control socket path \(path) is longer than a Unix socket path may be (107 bytes)"
        case .system(let operation, let path, let code):
            "cannot \(operation) \(path): \(String(cString: strerror(code)))"
        }
    }
}
