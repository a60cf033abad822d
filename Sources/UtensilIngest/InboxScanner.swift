import UtensilCore
import UtensilStorage
import UtensilStore
/// Walks the inbox and every folder below it, and lists the drops in it.
///
/// Every folder is opened beneath the held inbox, never through a symbolic link, and at any
/// depth: a path longer than `PATH_MAX` is no obstacle, and no depth limit leaves drops
/// lingering unseen. The walk keeps a list of folders to visit, not a stack of open ones, so
/// a deep tree holds one descriptor at a time.
public struct InboxScanner: Sendable {
    public var inbox: RawPath
    /// Folders never descended into, such as a `rejected` or state folder placed inside the inbox.
    public var excludedFolders: Set<FileIdentity>
    private let anchor: FolderAnchor

    public init(inbox: RawPath, excludedFolders: Set<FileIdentity> = []) {
        self.inbox = inbox
        self.excludedFolders = excludedFolders
        self.anchor = FolderAnchor(inbox)
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
        try scan(from: [])
    }

    /// The drops in one folder below the inbox (a folder that just appeared) and its sub-folders.
    public func scan(below folder: RawPath) throws(SystemError) -> [Drop] {
        let relative = folder.relative(to: inbox)
        guard relative != folder.bytes else { return [] }  // Not below the inbox.
        return try scan(from: relative)
    }

    /// The drop at `path` (as reported by the watcher), or nil when the entry is gone,
    /// invisible, an ordinary folder, or reached through a link.
    public func drop(at path: RawPath) -> Drop? {
        let relative = path.relative(to: inbox)
        guard relative != path.bytes, !relative.isEmpty,
              let (folder, name) = try? anchor.folder().parent(of: relative),
              let status = try? folder.status(of: name)
        else { return nil }
        let isFolder = status.kind == .directory
        if DropVisibility.isInvisible(name: name, isDirectory: isFolder) { return nil }
        if isFolder && !DropVisibility.hasPhotoExtension(name) { return nil }
        return Drop(path: path, inboxPath: relative, status: status)
    }

    /// What the drop is now, resolved beneath the inbox (a link described, not followed).
    public func status(of drop: Drop) throws(SystemError) -> FileStatus {
        let (folder, name) = try anchor.folder().parent(of: drop.inboxPath)
        return try folder.status(of: name)
    }

    /// `lstat` of a path.
    public static func status(of path: RawPath) throws(SystemError) -> FileStatus {
        try FileOps.lstat(path)
    }

    /// Walks from the folder `start` (relative to the inbox; empty for the inbox itself).
    private func scan(from start: [UInt8]) throws(SystemError) -> [Drop] {
        let root = try anchor.folder()
        var drops: [Drop] = []
        var pending: [[UInt8]] = [start]
        while let relative = pending.popLast() {
            let folder: HeldFolder
            let names: [[UInt8]]
            do {
                folder = try root.folder(relative)
                names = try folder.list()
            } catch where !relative.isEmpty {
                continue  // Removed, or replaced by a link, while we looked: nothing to do here.
            }
            var below: [[UInt8]] = []
            for name in names.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
                guard let status = try? folder.status(of: name) else { continue }  // Gone meanwhile.
                let isFolder = status.kind == .directory
                if DropVisibility.isInvisible(name: name, isDirectory: isFolder) { continue }
                let inboxPath = relative.isEmpty ? name : relative + [HeldFolder.slash] + name
                if isFolder && !DropVisibility.hasPhotoExtension(name) {
                    if !excludedFolders.contains(status.identity) { below.append(inboxPath) }
                    continue
                }
                drops.append(Drop(path: inbox.appending(inboxPath), inboxPath: inboxPath, status: status))
            }
            pending.append(contentsOf: below.reversed())
        }
        return drops
    }
}
