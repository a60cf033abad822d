import Foundation
import Glibc
import Synchronization

/// A TCP relay on 127.0.0.1 in front of a server (a SeaweedFS S3 port), counting for each
/// connection how many bytes it handed the client (the daemon), whether the client has stopped
/// taking them (a write would block: its receive window is full) and whether the client closed
/// it. So a test sees what the daemon took from the server, whether its reads push back, and
/// when it lets a connection go — events, not timings. One thread per direction per connection.
public final class CountingRelay: @unchecked Sendable {
    /// What one connection did so far.
    public struct Link: Sendable, CustomStringConvertible {
        /// Bytes from the server handed to the client.
        public var handed = 0
        /// Whether the relay waits now for the client to take more.
        public var blocked = false
        /// Whether the client closed its side (or the connection broke).
        public var clientClosed = false

        public var description: String { "\(handed) B\(blocked ? ", blocked" : "")\(clientClosed ? ", closed" : "")" }
    }

    public let port: Int
    private let upstreamPort: Int
    private let listener: Int32
    private let links = Mutex<[Int: Link]>([:])
    private let sockets = Mutex<[Int32]>([])
    /// Per connection, how many of its two threads have ended: the second closes both sockets.
    private let ended = Mutex<[Int: Int]>([:])
    private let stopped = Atomic<Bool>(false)

    /// Listens on a free port of 127.0.0.1 and relays each connection to `127.0.0.1:upstreamPort`.
    public init(upstreamPort: Int) throws {
        self.upstreamPort = upstreamPort
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound, listen(fd, 64) == 0 else {
            close(fd)
            throw TestFailure("relay bind/listen: \(String(cString: strerror(errno)))")
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread { [self] in acceptLoop() }.start()
    }

    deinit { stop() }

    /// Every connection so far, in the order they came.
    public var all: [Link] { links.withLock { $0.sorted { $0.key < $1.key }.map(\.value) } }

    /// Closes the listener and every connection.
    public func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for fd in sockets.withLock({ $0 }) { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    private func acceptLoop() {
        var next = 0
        while !stopped.load(ordering: .relaxed) {
            let client = accept(listener, nil, nil)
            guard client >= 0 else {
                if errno == EINTR { continue }
                return
            }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            guard let server = try? LoopbackSocket.connected(port: upstreamPort) else {
                close(client)
                continue
            }
            let id = next
            next += 1
            links.withLock { $0[id] = Link() }
            sockets.withLock { $0 += [client, server] }
            for direction in [true, false] {
                Thread { [self] in
                    if direction { serverToClient(id, server: server, client: client) } else { clientToServer(id, client: client, server: server) }
                    let last = ended.withLock { $0[id, default: 0] += 1; return $0[id] == 2 }
                    guard last else { return }
                    sockets.withLock { $0.removeAll { $0 == client || $0 == server } }
                    close(client)
                    close(server)
                }.start()
            }
        }
    }

    /// Hands the server's bytes to the client, noting each time the client's window is full.
    private func serverToClient(_ id: Int, server: Int32, client: Int32) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        defer { shutdown(client, Int32(SHUT_RDWR)) }
        while true {
            let count = recv(server, &buffer, buffer.count, 0)
            guard count > 0 else { return }
            var offset = 0
            while offset < count {
                let sent = buffer.withUnsafeBytes { send(client, $0.baseAddress! + offset, count - offset, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
                if sent > 0 {
                    offset += sent
                    links.withLock { $0[id]?.handed += sent; $0[id]?.blocked = false }
                    continue
                }
                guard sent < 0, errno == EAGAIN || errno == EWOULDBLOCK else {
                    links.withLock { $0[id]?.clientClosed = true }
                    return
                }
                links.withLock { $0[id]?.blocked = true }
                var entry = pollfd(fd: client, events: Int16(POLLOUT), revents: 0)
                _ = poll(&entry, 1, 200)
                if stopped.load(ordering: .relaxed) { return }
            }
        }
    }

    /// Passes the client's requests on; notes when the client closes.
    private func clientToServer(_ id: Int, client: Int32, server: Int32) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        defer {
            links.withLock { $0[id]?.clientClosed = true }
            shutdown(server, Int32(SHUT_RDWR))
        }
        while true {
            let count = recv(client, &buffer, buffer.count, 0)
            guard count > 0 else { return }
            var offset = 0
            while offset < count {
                let sent = buffer.withUnsafeBytes { send(server, $0.baseAddress! + offset, count - offset, Int32(MSG_NOSIGNAL)) }
                guard sent > 0 else { return }
                offset += sent
            }
        }
    }
}
