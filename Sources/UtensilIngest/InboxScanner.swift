/// Walks the inbox and every folder below it, and lists the drops in it.
public struct InboxScanner: Sendable {
    public var inbox: RawPath
    /// Folders never descended into, such as a `rejected` or state folder placed inside the inbox.
    public var excludedFolders: Set<FileIdentity>

    public init(inbox: RawPath, excludedFolders: Set<FileIdentity> = []) {
        self.inbox = inbox
        self.excludedFolders = excludedFolders
    }

    /// A scanner of the settings' inbox that skips the rejected and state folders, should
    /// someone have placed them inside the inbox.
    public init(settings: IngestSettings) {
        let inside = [settings.rejected, settings.stateDirectory].compactMap { try? FileOps.lstat($0).identity }
        self.init(inbox: settings.inbox, excludedFolders: Set(inside))
    }

    /// Every visible entry that is a drop: regular files, and also symlinks, FIFOs, sockets,
    /// devices and folders named like photos (they are rejected as `not-a-regular-file`).
    /// Sub-folders are descended into; the folders themselves stay.
    public func scan() throws(SystemError) -> [Drop] {
        var drops: [Drop] = []
        try scan(folder: inbox, into: &drops, depth: 0)
        return drops
    }

    /// The drops in one folder below the inbox (a folder that just appeared) and its sub-folders.
    public func scan(below folder: RawPath) throws(SystemError) -> [Drop] {
        var drops: [Drop] = []
        let depth = folder.relative(to: inbox).split(separator: UInt8(ascii: "/")).count
        try scan(folder: folder, into: &drops, depth: max(depth, 1))
        return drops
    }

    /// The drop at `path` (as reported by the watcher), or nil when the entry is gone,
    /// invisible, or an ordinary folder.
    public func drop(at path: RawPath) -> Drop? {
        guard let status = try? FileOps.lstat(path) else { return nil }
        let isFolder = status.kind == .directory
        let name = path.lastComponent
        if DropVisibility.isInvisible(name: name, isDirectory: isFolder) { return nil }
        if isFolder && !DropVisibility.hasPhotoExtension(name) { return nil }
        return Drop(path: path, inboxPath: path.relative(to: inbox), status: status)
    }

    /// `lstat` of a path.
    public static func status(of path: RawPath) throws(SystemError) -> FileStatus {
        try FileOps.lstat(path)
    }

    /// Deeper than this, a folder tree is more likely a loop or an attack than photos.
    static let maximumDepth = 32

    private func scan(folder: RawPath, into drops: inout [Drop], depth: Int) throws(SystemError) {
        let names: [[UInt8]]
        do {
            names = try FileOps.list(folder)
        } catch where depth > 0 && error.isNotFound {
            return  // A sub-folder removed while we looked: nothing to do.
        }
        for name in names.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            let path = folder.appending(name)
            guard let status = try? FileOps.lstat(path) else { continue }  // Gone meanwhile.
            let isFolder = status.kind == .directory
            if DropVisibility.isInvisible(name: name, isDirectory: isFolder) { continue }
            if isFolder && !DropVisibility.hasPhotoExtension(name) {
                if excludedFolders.contains(status.identity) || depth >= Self.maximumDepth { continue }
                try scan(folder: path, into: &drops, depth: depth + 1)
                continue
            }
            drops.append(Drop(path: path, inboxPath: path.relative(to: inbox), status: status))
        }
    }
}
