import Foundation
import Glibc

/// A bare client of the control socket, for tests that must misbehave on purpose.
public final class RawControlClient: @unchecked Sendable {
    public let fd: Int32

    public init(path: String) throws {
        fd = try UnixSocket.connected(to: path)
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    /// Sends bytes; returns false once the daemon has closed the connection.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool { SocketIO.sendAll(fd, bytes) }

    @discardableResult
    public func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Reads one line (without its newline), or nil at end of stream or after 30 s.
    public func readLine() -> String? {
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while recv(fd, &byte, 1, 0) == 1 {
            if byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
        }
        return line.isEmpty ? nil : String(decoding: line, as: UTF8.self)
    }

    /// One request line, one reply line, parsed as a JSON object.
    public func ask(_ request: String) throws -> [String: Any] {
        guard send(request + "\n"), let line = readLine() else { throw TestFailure("no reply to \(request)") }
        guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw TestFailure("reply is not a JSON object: \(line)")
        }
        return object
    }
}
