import Glibc

/// Unix-domain sockets for tests: bound ones (a NOTIFY_SOCKET, a socket named like a photo,
/// a stale control socket) and connected ones (a misbehaving client).
public enum UnixSocket {
    /// A new socket of `type` (`SOCK_STREAM`, `SOCK_DGRAM`) bound to `path`.
    public static func bound(to path: String, type: __socket_type) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(type.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket: \(String(cString: strerror(errno)))") }
        guard withAddress(path, { bind(fd, $0, $1) }) == 0 else {
            let code = errno
            close(fd)
            throw TestFailure("bind \(path): \(String(cString: strerror(code)))")
        }
        return fd
    }

    /// A new stream socket connected to `path`.
    public static func connected(to path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket: \(String(cString: strerror(errno)))") }
        guard withAddress(path, { connect(fd, $0, $1) }) == 0 else {
            let code = errno
            close(fd)
            throw TestFailure("connect \(path): \(String(cString: strerror(code)))")
        }
        return fd
    }

    private static func withAddress(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() where index < raw.count - 1 { raw[index] = byte }
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }
}
