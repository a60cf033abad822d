import CSystemd
import Glibc

extension JournalEntry {
    /// Sends the entry to journald's native socket.
    ///
    /// Each field is its own `iovec`, so values may hold line breaks and any bytes.
    func send() throws(JournalSendError) {
        var bytes: [UInt8] = []
        var ranges: [Range<Int>] = []
        for field in fields {
            let start = bytes.count
            bytes.append(contentsOf: field.name.utf8)
            bytes.append(UInt8(ascii: "="))
            bytes.append(contentsOf: field.value.utf8)
            ranges.append(start..<bytes.count)
        }
        let result: Int32 = bytes.withUnsafeBytes { buffer in
            let base = UnsafeMutableRawPointer(mutating: buffer.baseAddress!)
            let vectors = ranges.map { iovec(iov_base: base + $0.lowerBound, iov_len: $0.count) }
            return vectors.withUnsafeBufferPointer { sd_journal_sendv($0.baseAddress, Int32($0.count)) }
        }
        if result < 0 { throw JournalSendError(errno: -result) }
    }
}

/// `sd_journal_sendv` failed, typically `ECONNREFUSED` from a socket a stopped journald left
/// behind (libsystemd reports no error when the socket does not exist at all).
struct JournalSendError: Error, Equatable {
    var errno: Int32
}
