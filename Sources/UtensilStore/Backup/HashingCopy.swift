import Crypto
import Glibc
import UtensilCore
import UtensilStorage

/// Streams a file's bytes through SHA-256, optionally writing them to a new file on the way:
/// a backup's copies and checksums, a restore's copies and verification. Never holds a whole
/// file in memory.
package enum HashingCopy {
    /// Size and lower-case hex SHA-256 of what was read.
    package struct Digest: Sendable, Equatable {
        package var bytes: Int64
        package var sha256: String

        package init(bytes: Int64, sha256: String) {
            self.bytes = bytes
            self.sha256 = sha256
        }
    }

    static let chunkBytes = 1 << 20

    /// Reads `source` (an open descriptor, read from its current offset to its end) and, with
    /// `destination`, writes every byte to it too, then fsyncs it. Closes neither.
    static func stream(_ source: Int32, shown: RawPath, into destination: Int32? = nil, shownDestination: RawPath? = nil)
        throws(SystemError) -> Digest
    {
        var hasher = SHA256()
        var total: Int64 = 0
        var buffer = [UInt8](repeating: 0, count: chunkBytes)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress!, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw SystemError("read", shown)
            }
            if count == 0 { break }
            let chunk = buffer[..<count]
            hasher.update(data: chunk)
            if let destination {
                try FileOps.writeAll(destination, Array(chunk), path: shownDestination ?? shown)
            }
            total += Int64(count)
        }
        if let destination, fsync(destination) != 0 { throw SystemError("fsync", shownDestination ?? shown) }
        return Digest(bytes: total, sha256: hasher.finalize().map { hex($0) }.joined())
    }

    /// Hashes the file `name` in `folder` (a regular file: a link is not followed, anything else
    /// is `EINVAL`).
    package static func digest(of name: [UInt8], in folder: HeldFolder) throws(SystemError) -> Digest {
        let fd = try folder.openForReading(name)
        defer { close(fd) }
        try clearNonBlocking(fd, shown: folder.path.appending(name))
        return try stream(fd, shown: folder.path.appending(name))
    }

    /// The bytes of the regular file `name` in `folder` and what they measure (a restore into
    /// a storage that takes whole renditions); nil when it is not a regular file or is longer
    /// than `limit` bytes.
    package static func readWhole(_ name: [UInt8], in folder: HeldFolder, limit: Int) throws(SystemError) -> (bytes: [UInt8], digest: Digest)? {
        guard let bytes = try FileOps.readRegularFile(name, in: folder, limit: limit) else { return nil }
        let sha256 = SHA256.hash(data: bytes).map { hex($0) }.joined()
        return (bytes, Digest(bytes: Int64(bytes.count), sha256: sha256))
    }

    /// Copies `source` into a new file `name` of `folder` (mode 0600, owned by `owner` when
    /// given), made durable; returns what was copied.
    package static func copy(_ source: Int32, shown: RawPath, to name: [UInt8], in folder: HeldFolder, owner: FileOwner?)
        throws(SystemError) -> Digest
    {
        let fd = try folder.createExclusively(name, mode: StatePermissions.fileMode)
        defer { close(fd) }
        if let owner, fchown(fd, owner.uid, owner.gid) != 0 { throw SystemError("chown", folder.path.appending(name)) }
        return try stream(source, shown: shown, into: fd, shownDestination: folder.path.appending(name))
    }

    /// `openForReading` opens without blocking (a FIFO is never waited on); a regular file
    /// then reads as usual once the flag is off.
    package static func clearNonBlocking(_ fd: Int32, shown: RawPath) throws(SystemError) {
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw SystemError("fstat", shown) }
        guard status.st_mode & S_IFMT == S_IFREG else { throw SystemError("read", shown, code: EINVAL) }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }
}

/// Who should own what a restore run as root creates: the state folder's owner (the daemon's user).
public struct FileOwner: Sendable, Equatable {
    public var uid: uid_t
    public var gid: gid_t

    public init(uid: uid_t, gid: gid_t) {
        self.uid = uid
        self.gid = gid
    }
}
