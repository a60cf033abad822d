import Foundation
import Glibc

/// A bare HTTP/1.1 client of the web gallery on a Unix socket (`--web-listen unix:PATH`) or
/// on `127.0.0.1:PORT`: one connection per request, so tests can send anything, hostile bytes
/// included.
public struct WebClient: Sendable {
    public enum Endpoint: Sendable {
        case unix(path: String)
        /// `destination:port` on the loopback (`127.0.0.1` unless said), connecting from `source`
        /// (another loopback address) when given.
        case loopback(port: Int, source: String?, destination: String)
    }

    public let endpoint: Endpoint

    public init(socketPath: String) { endpoint = .unix(path: socketPath) }

    public init(port: Int, from source: String? = nil, to destination: String = "127.0.0.1") {
        endpoint = .loopback(port: port, source: source, destination: destination)
    }

    public struct Reply: Sendable {
        public var status: Int
        /// Header names in lower case.
        public var headers: [String: String]
        public var body: Data
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    /// `method path` with `headers` and `body`, sent for `host`; waits for the whole answer (30 s at most).
    public func request(
        _ method: String, _ path: String, host: String = "localhost", headers: [String: String] = [:], body: Data = Data()
    ) throws -> Reply {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        return try exchange(Data(head.utf8) + body)
    }

    public func get(_ path: String, headers: [String: String] = [:]) throws -> Reply {
        try request("GET", path, headers: headers)
    }

    /// Sends `bytes` as they are and parses what comes back.
    public func exchange(_ bytes: Data) throws -> Reply {
        let fd = try connect()
        defer { close(fd) }
        _ = send(fd, bytes)
        shutdown(fd, Int32(SHUT_WR))
        return try Self.parse(SocketIO.receiveAll(fd))
    }

    /// Reads a streaming response (server-sent events) until `done` holds for what arrived
    /// so far, or fails after `seconds`; `onOpen` runs once the first bytes have arrived.
    public func stream(
        _ path: String, seconds: Double = 30, onOpen: () throws -> Void = {}, until done: (String) -> Bool
    ) throws -> String {
        let fd = try connect()
        defer { close(fd) }
        _ = send(fd, Data("GET \(path) HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8))
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        let deadline = Date().addingTimeInterval(seconds)
        while !done(String(decoding: received, as: UTF8.self)) {
            guard Date() < deadline else {
                throw TestFailure("the stream \(path) did not show what was awaited; it said:\n\(String(decoding: received, as: UTF8.self))")
            }
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 200) >= 0 else { throw TestFailure("poll: \(String(cString: strerror(errno)))") }
            guard entry.revents != 0 else { continue }
            let count = recv(fd, &buffer, buffer.count, 0)
            guard count > 0 else { throw TestFailure("the stream \(path) closed early:\n\(String(decoding: received, as: UTF8.self))") }
            let first = received.isEmpty
            received.append(contentsOf: buffer[0..<count])
            if first { try onOpen() }
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// A connected socket; also used by tests that hold a connection open.
    public func connect() throws -> Int32 {
        let fd = switch endpoint {
        case .unix(let path): try UnixSocket.connected(to: path)
        case .loopback(let port, let source, let destination):
            try LoopbackSocket.connected(port: port, from: source, to: destination)
        }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    /// Writes all of `bytes`; false once the server has closed (it may refuse early).
    public func send(_ fd: Int32, _ bytes: Data) -> Bool { SocketIO.sendAll(fd, bytes) }

    static func parse(_ data: Data) throws -> Reply {
        guard let end = data.range(of: Data("\r\n\r\n".utf8)) else {
            throw TestFailure("no HTTP response head in \(data.count) bytes: \(String(decoding: data.prefix(300), as: UTF8.self))")
        }
        let lines = String(decoding: data[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let parts = lines[0].split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { throw TestFailure("bad status line \(lines[0])") }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Data(data[end.upperBound...])
        if headers["transfer-encoding"]?.lowercased() == "chunked" { body = try dechunk(body) }
        return Reply(status: status, headers: headers, body: body)
    }

    private static func dechunk(_ data: Data) throws -> Data {
        var out = Data()
        var rest = data[...]
        while let lineEnd = rest.range(of: Data("\r\n".utf8)) {
            let sizeText = String(decoding: rest[..<lineEnd.lowerBound], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else {
                throw TestFailure("bad chunk size \(sizeText)")
            }
            if size == 0 { break }
            let start = lineEnd.upperBound
            guard rest.distance(from: start, to: rest.endIndex) >= size else { throw TestFailure("a chunk is cut short") }
            let stop = rest.index(start, offsetBy: size)
            out.append(rest[start..<stop])
            rest = rest[(rest.index(stop, offsetBy: 2, limitedBy: rest.endIndex) ?? rest.endIndex)...]
        }
        return out
    }
}
