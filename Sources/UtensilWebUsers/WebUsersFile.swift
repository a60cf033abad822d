import Foundation
import Glibc
import HummingbirdBcrypt

/// The web users file (`web_users_file`): one `name:bcrypt-hash` a line; blank lines and
/// lines starting with `#` are kept as they are. Read by the daemon at each sign-in (so a
/// change needs no reload) and written by `utensilctl web-user`.
public struct WebUsersFile: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var name: String
        public var hash: String
    }

    /// The lines in order: an entry, or a line kept verbatim (comment, blank, unreadable).
    public enum Line: Sendable, Equatable {
        case user(Entry)
        case other(String)
    }

    public var lines: [Line]

    public init(lines: [Line] = []) { self.lines = lines }

    public init(text: String) {
        lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { raw in
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            guard !line.hasPrefix("#"), let colon = line.firstIndex(of: ":") else { return .other(String(line)) }
            let name = String(line[..<colon])
            let hash = String(line[line.index(after: colon)...])
            guard Self.problem(withName: name) == nil, hash.hasPrefix("$2") else { return .other(String(line)) }
            return .user(Entry(name: name, hash: hash))
        }
        if lines.last == .other("") { lines.removeLast() }
    }

    /// The file at `path`; a missing file is an empty one.
    public static func read(_ path: String) throws -> WebUsersFile {
        do {
            return WebUsersFile(text: try String(contentsOfFile: path, encoding: .utf8))
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile {
            return WebUsersFile()
        }
    }

    public var users: [Entry] {
        lines.compactMap { if case .user(let entry) = $0 { entry } else { nil } }
    }

    public func entry(named name: String) -> Entry? { users.first { $0.name == name } }

    public var text: String {
        lines.map { line in
            switch line {
            case .user(let entry): "\(entry.name):\(entry.hash)"
            case .other(let text): text
            }
        }.joined(separator: "\n") + (lines.isEmpty ? "" : "\n")
    }

    /// Adds `name` with a bcrypt hash of `password`, or replaces its hash.
    public mutating func set(_ name: String, password: String, cost: UInt8 = Self.cost) {
        let entry = Entry(name: name, hash: Bcrypt.hash(password, cost: cost))
        if let index = lines.firstIndex(where: { if case .user(let old) = $0 { old.name == name } else { false } }) {
            lines[index] = .user(entry)
        } else {
            lines.append(.user(entry))
        }
    }

    /// Removes `name`; false if there was no such user.
    public mutating func remove(_ name: String) -> Bool {
        let before = lines.count
        lines.removeAll { if case .user(let old) = $0 { old.name == name } else { false } }
        return lines.count != before
    }

    /// Whether `password` is `name`'s. An unknown name costs as much time as a known one.
    public func verify(_ name: String, password: String) -> Bool {
        guard let entry = entry(named: name) else {
            _ = Bcrypt.verify(password, hash: Self.decoyHash)
            return false
        }
        return Bcrypt.verify(password, hash: entry.hash)
    }

    /// bcrypt's work factor for new hashes (about a quarter of a second on one core).
    public static let cost: UInt8 = 12

    private static let decoyHash = Bcrypt.hash("decoy", cost: cost)

    /// Why `name` cannot be a web user name, or nil: 1 to 64 characters, no colon, no white
    /// space or control character.
    public static func problem(withName name: String) -> String? {
        if name.isEmpty { return "A web user name cannot be empty." }
        if name.count > 64 { return "A web user name can have at most 64 characters." }
        if name.unicodeScalars.contains(where: { $0 == ":" || $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7F }) {
            return "A web user name cannot hold a colon, white space or a control character; choose a plain name such as \"alice\"."
        }
        return nil
    }

    /// Writes the file atomically (a temporary file beside it, renamed into place). An
    /// existing file keeps its owner, group and mode; a new one is mode 0640 and takes its
    /// folder's group (so that utensild's group can read it when the folder is `root:utensil`).
    public func write(to path: String) throws(WebUsersFileError) {
        let folder = (path as NSString).deletingLastPathComponent
        let temporary = folder + "/." + (path as NSString).lastPathComponent + ".\(getpid()).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o640)
        guard fd >= 0 else { throw WebUsersFileError(path: path, folder: folder, code: errno) }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        let code = errno
        if written == bytes.count { _ = fsync(fd) }
        close(fd)
        guard written == bytes.count else {
            unlink(temporary)
            throw WebUsersFileError(path: path, folder: folder, code: written < 0 ? code : EIO)
        }
        var existing = stat()
        if stat(path, &existing) == 0 {
            _ = chown(temporary, existing.st_uid, existing.st_gid)
            _ = chmod(temporary, existing.st_mode & 0o7777)
        } else {
            _ = chmod(temporary, 0o640)  // Whatever the umask.
            if stat(folder.isEmpty ? "." : folder, &existing) == 0 { _ = chown(temporary, geteuid(), existing.st_gid) }
        }
        if rename(temporary, path) != 0 {
            let code = errno
            unlink(temporary)
            throw WebUsersFileError(path: path, folder: folder, code: code)
        }
    }
}

extension WebUsersFile {
    /// Puts `hash` in place of `name`'s hash inside the file itself: the bytes of that one hash
    /// are overwritten (bcrypt hashes are all 60 characters), the file is synced, and nothing
    /// else in it, nor its inode, owner or mode, changes. This is how utensild changes a
    /// password: it needs write access to the file only, never to its folder, so under the
    /// packaged unit it cannot create or replace anything in `/etc/utensild`.
    ///
    /// If the file was replaced meanwhile (`utensilctl web-user` renames a new one into
    /// place), the change is made again in the new file, as long as that still holds the
    /// hash it replaces.
    /// - Returns: false when `name` no longer has `oldHash` (an administrator changed it
    ///   first): nothing was written.
    public static func replaceHash(
        of name: String, from oldHash: String, to hash: String, in path: String
    ) throws(WebUsersFileError) -> Bool {
        let folder = (path as NSString).deletingLastPathComponent
        guard oldHash.utf8.count == hash.utf8.count else { throw WebUsersFileError(path: path, folder: folder, code: EINVAL) }
        for _ in 0..<3 {
            let fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
            guard fd >= 0 else { throw WebUsersFileError(path: path, folder: folder, code: errno) }
            defer { close(fd) }
            guard let bytes = readAll(fd) else { throw WebUsersFileError(path: path, folder: folder, code: errno) }
            guard let offset = hashOffset(of: name, holding: oldHash, in: bytes) else { return false }
            let new = Array(hash.utf8)
            let written = new.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(offset)) }
            guard written == new.count else { throw WebUsersFileError(path: path, folder: folder, code: written < 0 ? errno : EIO) }
            guard fsync(fd) == 0 else { throw WebUsersFileError(path: path, folder: folder, code: errno) }
            var opened = stat()
            var named = stat()
            if fstat(fd, &opened) == 0, stat(path, &named) == 0, opened.st_ino == named.st_ino, opened.st_dev == named.st_dev {
                return true
            }
        }
        throw WebUsersFileError(path: path, folder: folder, code: EBUSY)
    }

    private static func readAll(_ fd: Int32) -> [UInt8]? {
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            let count = pread(fd, &buffer, buffer.count, off_t(result.count))
            if count > 0 {
                result += buffer[..<count]
            } else if count == 0 {
                return result
            } else if errno != EINTR {
                return nil
            }
        }
    }

    /// Where the hash of the line `name:oldHash` starts, or nil.
    private static func hashOffset(of name: String, holding oldHash: String, in bytes: [UInt8]) -> Int? {
        let wanted = Array((name + ":" + oldHash).utf8)
        var start = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            var line = bytes[start..<end]
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            if line.elementsEqual(wanted) { return start + name.utf8.count + 1 }
            start = end + 1
        }
        return nil
    }
}

/// Why the web users file could not be written, in words a person can act on.
public struct WebUsersFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var folder: String
    public var code: Int32

    /// Not allowed (the folder or the file belongs to root): run as root.
    public var isPermissionDenied: Bool { code == EACCES || code == EPERM || code == EROFS }

    public var description: String {
        switch code {
        case ENOENT, ENOTDIR:
            "cannot write \(path): the folder \(folder) does not exist; make it (the package makes /etc/utensild) or pass --users-file PATH."
        case EACCES, EPERM, EROFS:
            "cannot write \(path) (\(code == EROFS ? "read-only here" : "permission denied")); run as root, or pass --users-file PATH."
        default:
            "cannot write \(path) (\(String(cString: strerror(code)))); pass --users-file PATH to write another file."
        }
    }
}

extension WebUsersFile {
    /// The file at `path` as utensild trusts it: only when nobody but root and `daemonUser`
    /// can change it (its owner is one of them, its group and others may not write it, nor
    /// replace it in its folder). Otherwise any member of the daemon's group could put their
    /// own hash on another user's line and sign in as them. A missing file is an empty one.
    public static func readTrusted(_ path: String, daemonUser: uid_t = geteuid()) throws(UntrustedUsersFile) -> WebUsersFile {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else {
            if errno == ENOENT { return WebUsersFile() }
            throw UntrustedUsersFile(path: path, problem: .unreadable(errno))
        }
        defer { close(fd) }
        var file = stat()
        guard fstat(fd, &file) == 0 else { throw UntrustedUsersFile(path: path, problem: .unreadable(errno)) }
        let trusted: Set<uid_t> = [0, daemonUser]
        guard (file.st_mode & S_IFMT) == S_IFREG else { throw UntrustedUsersFile(path: path, problem: .unreadable(EINVAL)) }
        guard trusted.contains(file.st_uid), file.st_mode & 0o022 == 0 else {
            throw UntrustedUsersFile(path: path, problem: .fileWritableByOthers(mode: file.st_mode & 0o7777, owner: file.st_uid))
        }
        let folder = (path as NSString).deletingLastPathComponent
        var parent = stat()
        if stat(folder.isEmpty ? "." : folder, &parent) == 0,
           !trusted.contains(parent.st_uid) || (parent.st_mode & 0o022 != 0 && parent.st_mode & S_ISVTX == 0)
        {
            throw UntrustedUsersFile(path: path, problem: .folderWritableByOthers(folder: folder, mode: parent.st_mode & 0o7777))
        }
        guard let bytes = readAll(fd) else { throw UntrustedUsersFile(path: path, problem: .unreadable(errno)) }
        return WebUsersFile(text: String(decoding: bytes, as: UTF8.self))
    }
}

/// Why utensild does not use the web users file: someone besides root and the daemon's user
/// could change it, or it cannot be read. Sign-ins are refused until it is fixed.
public struct UntrustedUsersFile: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Problem: Sendable, Equatable {
        case fileWritableByOthers(mode: mode_t, owner: uid_t)
        case folderWritableByOthers(folder: String, mode: mode_t)
        case unreadable(Int32)
    }

    public var path: String
    public var problem: Problem

    public var description: String {
        switch problem {
        case .fileWritableByOthers(let mode, let owner):
            "utensild does not use \(path) for sign-ins: users other than root and utensild's own may change it (owner uid \(owner), mode \(String(mode, radix: 8))), so they could sign in as anyone; make it the daemon's alone, e.g. sudo chown utensil:utensil \(path) && sudo chmod 0600 \(path)."
        case .folderWritableByOthers(let folder, let mode):
            "utensild does not use \(path) for sign-ins: its folder \(folder) (mode \(String(mode, radix: 8))) lets other users replace it; make the folder root's and not group- or world-writable, e.g. sudo chown root: \(folder) && sudo chmod go-w \(folder)."
        case .unreadable(let code):
            "utensild cannot read \(path) (\(String(cString: strerror(code)))); sign-ins are refused until it can: the daemon's user must be able to read it."
        }
    }
}
