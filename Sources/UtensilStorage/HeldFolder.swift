import CUtensilSupport
import Glibc
import UtensilCore

/// An open folder: every name below it is resolved relative to this descriptor, never
/// following a symbolic link in any component and never leaving it (see
/// `utensil_open_beneath`). A group member who swaps a sub-folder of the inbox for a link
/// to somewhere else makes the daemon refuse, not follow.
///
/// The descriptor is closed when the last reference goes.
public final class HeldFolder: Sendable {
    public let descriptor: Int32
    /// For messages only: where the folder was when it was opened.
    public let path: RawPath
    public let identity: FileIdentity

    private init(descriptor: Int32, path: RawPath) throws(SystemError) {
        var raw = stat()
        guard Glibc.fstat(descriptor, &raw) == 0 else {
            let error = SystemError("fstat folder", path)
            close(descriptor)
            throw error
        }
        self.descriptor = descriptor
        self.path = path
        self.identity = FileStatus(raw).identity
    }

    deinit { close(descriptor) }

    /// Opens a configured folder by its path. The path is the administrator's, so it may
    /// itself go through a link (an inbox configured as `/srv/inbox` → `/data/inbox`).
    public static func open(_ path: RawPath) throws(SystemError) -> HeldFolder {
        let fd = path.withCString { Glibc.open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard fd >= 0 else { throw SystemError("open folder", path) }
        return try HeldFolder(descriptor: fd, path: path)
    }

    /// The folder `relative` below this one (`Holiday/2024`), resolved beneath it.
    public func folder(_ relative: [UInt8]) throws(SystemError) -> HeldFolder {
        if relative.isEmpty { return self }
        let fd = try openBeneath(relative, flags: O_RDONLY | O_DIRECTORY)
        return try HeldFolder(descriptor: fd, path: path.appending(relative))
    }

    /// The folder holding `relative` and the entry's name in it (`Holiday/Spoon.jpg` →
    /// (`Holiday`, `Spoon.jpg`)).
    public func parent(of relative: [UInt8]) throws(SystemError) -> (folder: HeldFolder, name: [UInt8]) {
        guard let slash = relative.lastIndex(of: Self.slash) else { return (self, relative) }
        return (try folder(Array(relative[..<slash])), Array(relative[(slash + 1)...]))
    }

    /// Opens `relative` beneath this folder with `flags` (`O_CLOEXEC` is added).
    public func openBeneath(_ relative: [UInt8], flags: Int32, mode: mode_t = 0) throws(SystemError) -> Int32 {
        let fd = Self.withCString(relative) { utensil_open_beneath(descriptor, $0, flags, UInt32(mode)) }
        guard fd >= 0 else { throw SystemError("open", path.appending(relative)) }
        return fd
    }

    // MARK: Entries directly in this folder (names without `/`)

    /// `lstat` of an entry (a link is described, not followed).
    public func status(of name: [UInt8]) throws(SystemError) -> FileStatus {
        var raw = stat()
        let result = Self.withCString(name) { fstatat(descriptor, $0, &raw, AT_SYMLINK_NOFOLLOW) }
        guard result == 0 else { throw SystemError("lstat", path.appending(name)) }
        return FileStatus(raw)
    }

    /// Opens an entry for reading without following a link or blocking (a FIFO opens at
    /// once and is then refused by its `fstat`).
    public func openForReading(_ name: [UInt8]) throws(SystemError) -> Int32 {
        let flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY
        let fd = Self.withCString(name) { openat(descriptor, $0, flags) }
        guard fd >= 0 else { throw SystemError("open", path.appending(name)) }
        return fd
    }

    /// Creates a new file; fails with EEXIST if the name is taken (a link included).
    public func createExclusively(_ name: [UInt8], mode: mode_t) throws(SystemError) -> Int32 {
        let flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC
        let fd = Self.withCString(name) { openat(descriptor, $0, flags, mode) }
        guard fd >= 0 else { throw SystemError("create", path.appending(name)) }
        return fd
    }

    public func unlink(_ name: [UInt8]) throws(SystemError) {
        guard Self.withCString(name, { unlinkat(descriptor, $0, 0) }) == 0 else {
            throw SystemError("remove", path.appending(name))
        }
    }

    /// Renames an entry of this folder into `target` (possibly this folder), replacing
    /// whatever has that name.
    public func rename(_ name: [UInt8], to target: HeldFolder, as newName: [UInt8]) throws(SystemError) {
        let result = Self.withCString(name) { from in
            Self.withCString(newName) { renameat(descriptor, from, target.descriptor, $0) }
        }
        guard result == 0 else { throw SystemError("rename", path.appending(name)) }
    }

    /// Removes an entry; one already gone is fine.
    public func unlinkIfPresent(_ name: [UInt8]) throws(SystemError) {
        guard Self.withCString(name, { unlinkat(descriptor, $0, 0) }) == 0 || errno == ENOENT else {
            throw SystemError("remove", path.appending(name))
        }
    }

    /// Renames an entry of this folder into `target` (replacing), if it is there.
    public func renameIfPresent(_ name: [UInt8], to target: HeldFolder, as newName: [UInt8]) throws(SystemError) {
        let result = Self.withCString(name) { from in
            Self.withCString(newName) { renameat(descriptor, from, target.descriptor, $0) }
        }
        guard result == 0 || errno == ENOENT else { throw SystemError("rename", path.appending(name)) }
    }

    /// Renames an entry of this folder into `target` without ever replacing a file (EEXIST).
    public func renameNoReplace(_ name: [UInt8], to target: HeldFolder, as newName: [UInt8]) throws(SystemError) {
        let result = Self.withCString(name) { from in
            Self.withCString(newName) { utensil_renameat_noreplace(descriptor, from, target.descriptor, $0) }
        }
        guard result == 0 else { throw SystemError("rename", path.appending(name)) }
    }

    public func makeFolder(_ name: [UInt8], mode: mode_t = 0o750) throws(SystemError) {
        let result = Self.withCString(name) { mkdirat(descriptor, $0, mode) }
        guard result == 0 || errno == EEXIST else { throw SystemError("create folder", path.appending(name)) }
    }

    /// Creates a new folder; fails with EEXIST if the name is taken.
    public func makeNewFolder(_ name: [UInt8], mode: mode_t) throws(SystemError) {
        guard Self.withCString(name, { mkdirat(descriptor, $0, mode) }) == 0 else {
            throw SystemError("create folder", path.appending(name))
        }
    }

    /// Removes an empty folder.
    public func removeFolder(_ name: [UInt8]) throws(SystemError) {
        guard Self.withCString(name, { unlinkat(descriptor, $0, AT_REMOVEDIR) }) == 0 else {
            throw SystemError("remove folder", path.appending(name))
        }
    }

    /// Makes the folder's entries durable.
    public func sync() throws(SystemError) {
        guard fsync(descriptor) == 0 else { throw SystemError("fsync folder", path) }
    }

    /// The names in this folder, without `.` and `..`.
    public func list() throws(SystemError) -> [[UInt8]] {
        // fdopendir takes the descriptor over: list a fresh one of our own (its own offset).
        let copy = openat(descriptor, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard copy >= 0 else { throw SystemError("open folder", path) }
        guard let dir = fdopendir(copy) else {
            let error = SystemError("open folder", path)
            close(copy)
            throw error
        }
        defer { closedir(dir) }
        var names: [[UInt8]] = []
        while let entry = readdir(dir) {
            let name = DirectoryEntryName.bytes(of: entry)
            if name == [UInt8(ascii: ".")] || name == [UInt8(ascii: "."), UInt8(ascii: ".")] { continue }
            names.append(name)
        }
        return names
    }

    /// `/`, which no name of an entry holds.
    public static let slash = UInt8(ascii: "/")

    /// Runs `body` on `bytes` as a C string (a name or a relative path).
    public static func withCString<R>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        try RawPath(bytes: bytes).withCString(body)
    }
}

/// A configured folder (the inbox, `rejected/`, `originals/` …), opened afresh by its path
/// for each piece of work and held for as long as that work lasts (a drop's ingest, a
/// scan). The path is the administrator's; what lies below it is resolved beneath the
/// folder held. Not held between drops: an open descriptor on the inbox would keep inotify
/// from reporting the inbox deleted (`IN_DELETE_SELF` waits for the last reference), and a
/// folder deleted and made anew must be the one written to.
public struct FolderAnchor: Sendable {
    public let path: RawPath

    public init(_ path: RawPath) { self.path = path }

    /// The folder now at `path`.
    public func folder() throws(SystemError) -> HeldFolder {
        try HeldFolder.open(path)
    }
}
