import Glibc

/// Reads the configuration file's text, telling "missing" apart from "unreadable".
enum ConfigurationFile {
    /// The file's text, or nil when it does not exist.
    static func text(at path: String) throws(ConfigurationError) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            let code = errno
            var link = stat()
            if code == ENOENT, lstat(path, &link) != 0 { return nil }
            if code == ENOENT { throw .fileUnreadable(path: path, reason: "it is a symbolic link to a missing file") }
            throw .fileUnreadable(path: path, reason: errorText(code))
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .fileUnreadable(path: path, reason: errorText(errno)) }
        // A regular file, or /dev/null (`--config /dev/null`: all defaults, whatever /etc holds).
        let isDevNull = info.st_mode & S_IFMT == S_IFCHR && path == "/dev/null"
        guard info.st_mode & S_IFMT == S_IFREG || isDevNull else {
            throw .fileUnreadable(path: path, reason: "it is not a regular file")
        }

        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .fileUnreadable(path: path, reason: errorText(errno))
            }
            if count == 0 { break }
            bytes += chunk[..<count]
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw .fileUnreadable(path: path, reason: "it is not UTF-8 text")
        }
        // TOML forbids NUL, and the parser would silently stop at one.
        guard !text.unicodeScalars.contains("\0") else {
            throw .fileUnreadable(path: path, reason: "it contains a NUL byte, so it is not a TOML text file")
        }
        return text
    }

    static func errorText(_ code: Int32) -> String { String(cString: strerror(code)) }
}
