import Glibc
import Synchronization

/// Writes to file descriptor 2 without buffering.
enum StandardError {
    /// Held while a line is written, so that the rest of a line the kernel took only in part is
    /// never preceded by another thread's line.
    private static let writing = Mutex(())

    /// Writes `line` and a line break with as few `write` calls as the kernel allows (one, almost
    /// always), so that lines from concurrent loggers do not interleave.
    static func writeLine(_ line: String) {
        var bytes = Array(line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        writing.withLock { _ in
            bytes.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = write(STDERR_FILENO, buffer.baseAddress! + offset, buffer.count - offset)
                    if written > 0 {
                        offset += written
                    } else if written < 0 && errno == EINTR {
                        continue
                    } else {
                        return  // Nowhere left to report a failing stderr.
                    }
                }
            }
        }
    }
}
