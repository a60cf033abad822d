import Glibc

/// IPv4 loopback TCP sockets for tests of the gallery on `127.0.0.1:PORT`: connected ones,
/// optionally from another loopback address (`127.0.0.2`) to stand for another client.
public enum LoopbackSocket {
    /// A port nobody listens on now (bound to port 0 and released).
    public static func freePort() throws -> Int {
        let fd = try stream()
        defer { close(fd) }
        try call("bind 127.0.0.1:0", on: fd, "127.0.0.1", port: 0, bind)
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// A stream socket connected to `destination:port`, from `source` (a loopback address) when
    /// given; with `receiveBuffer`, its receive buffer is that small (a reader that stalls
    /// fills it at once, as a slow phone would).
    public static func connected(
        port: Int, from source: String? = nil, to destination: String = "127.0.0.1", receiveBuffer: Int32? = nil
    ) throws -> Int32 {
        let fd = try stream()
        do {
            if var size = receiveBuffer {
                setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            }
            if let source { try call("bind \(source)", on: fd, source, port: 0, bind) }
            try call("connect \(destination):\(port)", on: fd, destination, port: port, connect)
        } catch {
            close(fd)
            throw error
        }
        return fd
    }

    private static func stream() throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket: \(String(cString: strerror(errno)))") }
        return fd
    }

    /// `body(fd, address of ip:port, its length)` (bind or connect), or a failure naming `what`.
    private static func call(
        _ what: String, on fd: Int32, _ ip: String, port: Int, _ body: (Int32, UnsafePointer<sockaddr>, socklen_t) -> Int32
    ) throws {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        inet_pton(AF_INET, ip, &address.sin_addr)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { throw TestFailure("\(what): \(String(cString: strerror(errno)))") }
    }
}
