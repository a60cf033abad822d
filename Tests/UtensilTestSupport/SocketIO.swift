import Foundation
import Glibc

/// Whole writes and reads on a connected stream socket, for the tests' own clients.
public enum SocketIO {
    /// Writes all of `bytes` to `fd`; false once the peer has closed it (it may refuse early).
    public static func sendAll(_ fd: Int32, _ bytes: some ContiguousBytes) -> Bool {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let count = Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if count <= 0 { return false }
                offset += count
            }
            return true
        }
    }

    /// Reads from `fd` until the peer closes it (or the socket's receive time-out passes).
    public static func receiveAll(_ fd: Int32) -> Data {
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received.append(contentsOf: buffer[0..<count])
        }
        return received
    }
}
