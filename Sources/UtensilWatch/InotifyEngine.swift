import Glibc

/// The inotify side of `InboxWatcher`: owns the inotify descriptor and the table of watches,
/// and turns kernel records into `WatchEvent`s. Used by one thread at a time.
final class InotifyEngine {
    /// Watched on every folder. IN_OPEN, IN_MODIFY, IN_CLOSE_NOWRITE and IN_DELETE only keep
    /// `writers` current (the kernel merges a run of identical IN_MODIFY records, and only a change
    /// of state is acted on); IN_ATTRIB is left out (chmod/touch/utime noise — a content change
    /// always ends in a close).
    static let folderMask = UInt32(bitPattern:
        IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_MOVED_FROM | IN_DELETE_SELF | IN_MOVE_SELF
            | IN_OPEN | IN_MODIFY | IN_CLOSE_NOWRITE | IN_DELETE | IN_ONLYDIR | IN_EXCL_UNLINK)
    /// Added for every folder but the inbox itself, which may be a symlink.
    static let dontFollow = UInt32(bitPattern: IN_DONT_FOLLOW)

    let descriptor: Int32
    let inbox: [UInt8]
    private let walker: FolderWalker
    private let problems: ProblemLog
    /// The files a writer holds open, kept current from the events.
    let writers: OpenWriters
    private(set) var table = WatchTable()
    /// The inbox's own watch; `nil` while the inbox is gone.
    private(set) var inboxWatch: Int32?

    var inboxIsGone: Bool { inboxWatch == nil }

    /// Opens an inotify instance and watches the inbox tree. Throws if the inbox is missing,
    /// unreadable, or the watch limit is reached.
    init(
        inbox: [UInt8], skipFolder: @escaping @Sendable ([UInt8]) -> Bool,
        excluded: Set<FolderIdentity>, problems: ProblemLog, writers: OpenWriters = OpenWriters()
    ) throws(WatchError) {
        self.inbox = BytePath.normalized(inbox)
        self.writers = writers
        self.walker = FolderWalker(skipFolder: skipFolder, excluded: excluded)
        self.problems = problems
        let descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else {
            let code = errno
            throw code == EMFILE ? .tooManyInotifyInstances : .inotifyUnavailable(errno: code)
        }
        self.descriptor = descriptor
        if let error = watchInbox() { throw error }
    }

    deinit { close(descriptor) }

    // MARK: Processing records

    /// Handles one batch of records, appending what the caller must hear to `events`.
    func handle(_ records: [InotifyRecord], into events: inout [WatchEvent]) {
        var overflowed = false
        for record in records {
            if record.has(IN_Q_OVERFLOW) {
                overflowed = true
                continue
            }
            guard !inboxIsGone, let folder = table[record.wd] else { continue }  // stale watch
            if record.has(IN_IGNORED) {
                table.remove(record.wd)
                if record.wd == inboxWatch { inboxVanished(into: &events) }
                continue
            }
            if record.name.isEmpty {
                handleSelfEvent(record, folder: folder, into: &events)
                continue
            }
            let path = BytePath.join(folder.path, record.name)
            if record.has(IN_ISDIR) {
                if record.has(IN_MOVED_FROM) {
                    unwatch(under: path)
                } else if record.has(IN_CREATE) || record.has(IN_MOVED_TO) {
                    folderArrived(path, name: record.name, depth: folder.depth + 1, into: &events)
                }
            } else {
                let released = writers.update { $0.note(record.mask, path: relative(path)) }
                if released || record.has(IN_CLOSE_WRITE) || record.has(IN_MOVED_TO) || record.has(IN_CREATE) {
                    events.append(.candidate(path: path))
                }
            }
        }
        if overflowed { resynchronize(into: &events) }
    }

    /// While the inbox is gone: watches it again if it is back.
    func checkInboxBack(into events: inout [WatchEvent]) {
        guard inboxIsGone else { return }
        guard InboxCheck.problem(with: inbox) == nil else { return }
        if let error = watchInbox() {
            if case .watchLimitReached = error { report(error) }
            return
        }
        events.append(.inboxBack)
    }

    /// The kernel lost events: re-walk the whole tree, adding watches for folders whose creation
    /// was lost, re-pointing renamed ones and dropping vanished ones.
    func resynchronize(into events: inout [WatchEvent]) {
        guard !inboxIsGone else { return }
        writers.update { $0.removeAll() }  // What writers did meanwhile is unknown: settle decides.
        let stale = table.allWatches
        var visited = Set<Int32>()
        let error = addTree(inbox, depth: 0, isInbox: true, visited: &visited)
        guard let root = inboxWatch, visited.contains(root) else {
            inboxVanished(into: &events)
            return
        }
        removeWatches(stale.subtracting(visited))
        if let error { report(error) }
        events.append(.overflow)
    }

    // MARK: Private

    private func handleSelfEvent(_ record: InotifyRecord, folder: WatchTable.Entry, into events: inout [WatchEvent]) {
        if record.wd == inboxWatch {
            if record.has(IN_DELETE_SELF) || record.has(IN_MOVE_SELF) || record.has(IN_UNMOUNT) {
                inboxVanished(into: &events)
            }
        } else if record.has(IN_UNMOUNT) {
            // A file system mounted below the inbox went away: the mount point now shows the
            // folder underneath, which is new to us.
            let name = folder.path.split(separator: BytePath.slash).last.map(Array.init) ?? []
            folderArrived(folder.path, name: name, depth: folder.depth, into: &events)
        }
        // IN_DELETE_SELF / IN_MOVE_SELF of a sub-folder: its parent's IN_MOVED_FROM or the
        // following IN_IGNORED deal with it.
    }

    /// A folder was created or moved in at `path` (possibly replacing an old watched tree there).
    private func folderArrived(_ path: [UInt8], name: [UInt8], depth: Int, into events: inout [WatchEvent]) {
        let stale = table.watches(under: path)
        writers.update { $0.forget(under: relative(path)) }
        var visited = Set<Int32>()
        var error: WatchError?
        if !walker.skipFolder(name), depth <= FolderWalker.maxDepth {
            error = addTree(path, depth: depth, isInbox: false, visited: &visited)
        }
        removeWatches(stale.subtracting(visited))
        if !visited.isEmpty { events.append(.folderAppeared(path: path)) }
        if let error {
            report(error)
            events.append(.overflow)
        }
    }

    /// A folder left (moved out, or renamed: the new name arrives as IN_MOVED_TO and is watched
    /// afresh). Dropping its watches keeps events from outside the inbox out, and keeps no stale path.
    private func unwatch(under path: [UInt8]) {
        removeWatches(table.watches(under: path))
        writers.update { $0.forget(under: relative(path)) }
    }

    /// `path` relative to the inbox, as drops name themselves.
    private func relative(_ path: [UInt8]) -> [UInt8] {
        guard BytePath.isDescendant(path, of: inbox) else { return [] }
        return Array(path[(inbox.last == BytePath.slash ? inbox.count : inbox.count + 1)...])
    }

    private func inboxVanished(into events: inout [WatchEvent]) {
        guard !inboxIsGone else { return }
        writers.update { $0.removeAll() }
        removeWatches(table.allWatches)
        table.removeAll()
        inboxWatch = nil
        events.append(.inboxGone)
    }

    /// Watches the inbox tree; on success `inboxWatch` is set.
    private func watchInbox() -> WatchError? {
        if let problem = InboxCheck.problem(with: inbox) { return problem }
        var visited = Set<Int32>()
        var rootError: Int32 = 0
        let error = addTree(inbox, depth: 0, isInbox: true, visited: &visited, rootError: &rootError)
        if error != nil || inboxWatch == nil {
            removeWatches(visited)
            inboxWatch = nil
            return error ?? .inboxUnreadable(path: inbox, errno: rootError == 0 ? EACCES : rootError)
        }
        return nil
    }

    private func addTree(_ path: [UInt8], depth: Int, isInbox: Bool, visited: inout Set<Int32>) -> WatchError? {
        var ignored: Int32 = 0
        return addTree(path, depth: depth, isInbox: isInbox, visited: &visited, rootError: &ignored)
    }

    /// Adds watches on `path` and the folders below it (each watch before listing the folder,
    /// so nothing created meanwhile is missed). Existing watches are re-pointed to their new path.
    private func addTree(
        _ path: [UInt8], depth: Int, isInbox: Bool, visited: inout Set<Int32>, rootError: inout Int32
    ) -> WatchError? {
        var limitError: WatchError?
        walker.walk(path, depth: depth, isInbox: isInbox) { folder, level in
            let isRoot = isInbox && level == depth
            let mask = Self.folderMask | (isRoot ? 0 : Self.dontFollow)
            let wd = BytePath.withCString(folder) { inotify_add_watch(descriptor, $0, mask) }
            guard wd >= 0 else {
                let code = errno
                if code == ENOSPC || code == ENOMEM {
                    limitError = .watchLimitReached(path: folder)
                    return .abort
                }
                if isRoot { rootError = code }
                return .skipChildren  // vanished, not a folder any more, or not readable
            }
            table.set(wd, path: folder, depth: level)
            visited.insert(wd)
            if isRoot { inboxWatch = wd }
            return .descend
        }
        return limitError
    }

    private func removeWatches(_ watches: Set<Int32>) {
        for wd in watches {
            inotify_rm_watch(descriptor, wd)  // EINVAL if the kernel dropped it already: fine
            table.remove(wd)
        }
    }

    private func report(_ error: WatchError) {
        problems.record(error)
    }
}
