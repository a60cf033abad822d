import Glibc

/// Writes whole lines straight to standard output or error, unbuffered, so that `events`
/// lines appear at once and never interleave half-written.
enum StandardStreams {
    static func out(_ line: String) { write(line + "\n", to: STDOUT_FILENO) }

    static func error(_ line: String) { write(line + "\n", to: STDERR_FILENO) }

    private static func write(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Glibc.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 && errno == EINTR { continue }
                if written <= 0 { return }
                offset += written
            }
        }
    }
}
