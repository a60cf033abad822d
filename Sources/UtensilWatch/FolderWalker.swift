import CUtensilSupport
import Glibc
import UtensilCore

/// Walks the folder tree below the inbox by descriptor, with the rules both watchers share.
///
/// Every folder is opened beneath the inbox the walk holds (`utensil_open_beneath`: no symbolic
/// link followed in any component, never leaving the inbox), so a sub-folder swapped for a link
/// is never entered, and neither a path longer than `PATH_MAX` nor any depth is an obstacle.
/// `skipFolder` names and `excluded` folders are not entered. The walk keeps a list of folders
/// still to visit, not a stack of open ones: it holds the inbox and one folder at a time.
struct FolderWalker {
    /// What to do after visiting a folder.
    enum Visit { case descend, skipChildren, abort }

    /// A folder being visited.
    struct Folder {
        /// The full path, for events and messages only: it may be longer than `PATH_MAX`, and
        /// is never opened.
        let path: [UInt8]
        /// Open on the folder for the visit only (closed by the walk afterwards).
        let descriptor: Int32
        /// Whether this is the folder the walk started from.
        let isStart: Bool
    }

    /// How a walk went.
    struct Outcome {
        /// Why the folder the walk started from could not be opened (`nil`: it was visited).
        var startError: Int32?
        /// Whether `folder` aborted the walk.
        var aborted = false
        /// The first folder left unvisited for want of descriptors or memory.
        var unvisited: WatchError?
    }

    let skipFolder: @Sendable ([UInt8]) -> Bool
    let excluded: Set<FolderIdentity>

    /// Visits the folder `start` below `inbox` (empty: the inbox itself) and every folder
    /// below it: `folder` is called for each (before its entries are listed), `file` for every
    /// entry that is not a folder, with its full path and `lstat` information.
    ///
    /// The inbox is opened by its path (the administrator's, which may go through a link) and
    /// is never excluded. A folder that vanished, became something else or cannot be read is
    /// passed over silently.
    @discardableResult
    func walk(
        inbox: [UInt8], from start: [UInt8] = [],
        folder: (Folder) -> Visit,
        file: (([UInt8], stat) -> Void)? = nil
    ) -> Outcome {
        let inboxDescriptor = RawPath(bytes: inbox).withCString { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard inboxDescriptor >= 0 else { return Outcome(startError: errno) }
        defer { close(inboxDescriptor) }
        var outcome = Outcome()
        var pending: [[UInt8]] = [start]
        var isStart = true
        while let relative = pending.popLast() {
            defer { isStart = false }
            let descriptor = relative.isEmpty
                ? openat(inboxDescriptor, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                : RawPath(bytes: relative).withCString { utensil_open_beneath(inboxDescriptor, $0, O_RDONLY | O_DIRECTORY, 0) }
            let path = relative.isEmpty ? inbox : RawPath(bytes: inbox).appending(relative).bytes
            guard descriptor >= 0 else {
                let code = errno
                if isStart {
                    outcome.startError = code
                } else if Self.isResourceLimit(code), outcome.unvisited == nil {
                    outcome.unvisited = .folderNotWatched(path: path, errno: code)
                }
                continue
            }
            var info = stat()
            guard fstat(descriptor, &info) == 0, relative.isEmpty || !excluded.contains(FolderIdentity(info)) else {
                close(descriptor)
                continue
            }
            switch folder(Folder(path: path, descriptor: descriptor, isStart: isStart)) {
            case .abort:
                close(descriptor)
                outcome.aborted = true
                return outcome
            case .skipChildren:
                close(descriptor)
            case .descend:
                let names = list(descriptor, path: path, file: file)
                pending += names.reversed().map { relative.isEmpty ? $0 : RawPath(bytes: relative).appending($0).bytes }
            }
        }
        return outcome
    }

    /// Whether an `open` failed for want of descriptors or memory (not because of the folder).
    static func isResourceLimit(_ code: Int32) -> Bool {
        code == EMFILE || code == ENFILE || code == ENOMEM
    }

    /// Lists an open folder (and closes it), reporting files; returns the sub-folder names to
    /// enter, in byte order.
    private func list(_ descriptor: Int32, path: [UInt8], file: (([UInt8], stat) -> Void)?) -> [[UInt8]] {
        guard let directory = fdopendir(descriptor) else {
            close(descriptor)
            return []
        }
        defer { closedir(directory) }
        let folderFD = dirfd(directory)
        var subfolders: [[UInt8]] = []
        while let entry = readdir(directory) {
            let name = DirectoryEntryName.bytes(of: entry)
            if name == [UInt8(ascii: ".")] || name == [UInt8(ascii: "."), UInt8(ascii: ".")] { continue }
            var type = Int(entry.pointee.d_type)
            var info: stat?
            if type == DT_UNKNOWN || (file != nil && type != DT_DIR) {
                var entryInfo = stat()
                let status = RawPath(bytes: name).withCString {
                    fstatat(folderFD, $0, &entryInfo, AT_SYMLINK_NOFOLLOW)
                }
                guard status == 0 else { continue }  // vanished meanwhile
                info = entryInfo
                type = entryInfo.st_mode & S_IFMT == S_IFDIR ? DT_DIR : DT_REG
            }
            if type == DT_DIR {
                if !skipFolder(name) { subfolders.append(name) }
            } else if let file, let info {
                file(RawPath(bytes: path).appending(name).bytes, info)
            }
        }
        return subfolders.sorted { $0.lexicographicallyPrecedes($1) }
    }

}
