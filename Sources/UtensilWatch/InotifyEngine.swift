import Glibc
import UtensilCore

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
    /// Added when a folder is watched by its path (only without `/proc`), for every folder but
    /// the inbox itself, which may be a symlink.
    static let dontFollow = UInt32(bitPattern: IN_DONT_FOLLOW)
    /// Whether open folders can be watched through `/proc/self/fd` (else by their paths).
    static let canWatchDescriptors = access("/proc/self/fd", X_OK) == 0

    let descriptor: Int32
    let inbox: [UInt8]
    private let walker: FolderWalker
    private let problems: ProblemLog
    /// The files a writer holds open, kept current from the events.
    let writers: OpenWriters
    private(set) var table = WatchTable()
    /// The inbox's own watch; `nil` while the inbox is gone.
    private(set) var inboxWatch: Int32?
    /// Why part of the tree was left unwatched when the inbox was (last) watched, until taken
    /// by `takeStartProblem()`.
    private var startProblem: WatchError?

    var inboxIsGone: Bool { inboxWatch == nil }

    /// Opens an inotify instance and watches the inbox tree. Throws if the inbox is missing,
    /// unreadable, or the watch limit is reached.
    init(
        inbox: [UInt8], skipFolder: @escaping @Sendable ([UInt8]) -> Bool,
        excluded: Set<FolderIdentity>, problems: ProblemLog, writers: OpenWriters = OpenWriters()
    ) throws(WatchError) {
        self.inbox = RawPath(bytes: inbox).normalized.bytes
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
            let path = RawPath(bytes: folder.path).appending(record.name).bytes
            if record.has(IN_ISDIR) {
                if record.has(IN_MOVED_FROM) {
                    unwatch(under: path)
                } else if record.has(IN_CREATE) || record.has(IN_MOVED_TO) {
                    folderArrived(path, name: record.name, into: &events)
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
        events += takeStartProblem()
    }

    /// Why part of the tree was left unwatched when the inbox was watched at start, as an event
    /// (once).
    func takeStartProblem() -> [WatchEvent] {
        defer { startProblem = nil }
        guard let startProblem else { return [] }
        report(startProblem)
        return [.unwatched(startProblem)]
    }

    /// The kernel lost events: re-walk the whole tree, adding watches for folders whose creation
    /// was lost, re-pointing renamed ones and dropping vanished ones.
    func resynchronize(into events: inout [WatchEvent]) {
        guard !inboxIsGone else { return }
        writers.update { $0.removeAll() }  // What writers did meanwhile is unknown: settle decides.
        let stale = table.allWatches
        var visited = Set<Int32>()
        let error = addTree(from: [], visited: &visited).unwatched
        guard let root = inboxWatch, visited.contains(root) else {
            inboxVanished(into: &events)
            return
        }
        removeWatches(stale.subtracting(visited))
        if let error { report(error, into: &events) }
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
            let name = folder.path.split(separator: RawPath.separator).last.map(Array.init) ?? []
            folderArrived(folder.path, name: name, into: &events)
        }
        // IN_DELETE_SELF / IN_MOVE_SELF of a sub-folder: its parent's IN_MOVED_FROM or the
        // following IN_IGNORED deal with it.
    }

    /// A folder was created or moved in at `path` (possibly replacing an old watched tree there).
    private func folderArrived(_ path: [UInt8], name: [UInt8], into events: inout [WatchEvent]) {
        let stale = table.watches(under: path)
        writers.update { $0.forget(under: relative(path)) }
        var visited = Set<Int32>()
        var error: WatchError?
        if !walker.skipFolder(name) {
            error = addTree(from: relative(path), visited: &visited).unwatched
        }
        removeWatches(stale.subtracting(visited))
        if !visited.isEmpty { events.append(.folderAppeared(path: path)) }
        if let error {
            report(error, into: &events)
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
        let path = RawPath(bytes: path), root = RawPath(bytes: inbox)
        return path.isDescendant(of: root) ? path.relative(to: root) : []
    }

    private func inboxVanished(into events: inout [WatchEvent]) {
        guard !inboxIsGone else { return }
        writers.update { $0.removeAll() }
        removeWatches(table.allWatches)
        table.removeAll()
        inboxWatch = nil
        events.append(.inboxGone)
    }

    /// Watches the inbox tree; on success `inboxWatch` is set. Folders below the inbox left
    /// unwatched (the watch limit reached, no descriptor left) do not make it fail: that is
    /// kept for `takeStartProblem()`, and the scans find their drops.
    private func watchInbox() -> WatchError? {
        if let problem = InboxCheck.problem(with: inbox) { return problem }
        var visited = Set<Int32>()
        let (unwatched, startError) = addTree(from: [], visited: &visited)
        guard inboxWatch != nil else {
            removeWatches(visited)
            return unwatched ?? .inboxUnreadable(path: inbox, errno: startError ?? EACCES)
        }
        startProblem = unwatched
        return nil
    }

    /// Adds watches on the folder `start` (relative to the inbox; empty for the inbox itself)
    /// and the folders below it, each watch before the folder is listed, so nothing created
    /// meanwhile is missed. Existing watches are re-pointed to their new path. Returns why a
    /// folder was left unwatched, and why `start` could not be opened.
    private func addTree(from start: [UInt8], visited: inout Set<Int32>) -> (unwatched: WatchError?, startError: Int32?) {
        var unwatched: WatchError?
        var startError: Int32?
        let outcome = walker.walk(inbox: inbox, from: start) { folder in
            let isInbox = start.isEmpty && folder.isStart
            let wd = addWatch(on: folder, isInbox: isInbox)
            guard wd >= 0 else {
                let code = -wd
                if code == ENOSPC || code == ENOMEM {
                    unwatched = .watchLimitReached(path: folder.path)
                    return .abort
                }
                if code == ENAMETOOLONG, unwatched == nil { unwatched = .folderNotWatched(path: folder.path, errno: code) }
                if isInbox { startError = code }
                return .skipChildren  // vanished, or not readable
            }
            table.set(wd, path: folder.path)
            visited.insert(wd)
            if isInbox { inboxWatch = wd }
            return .descend
        }
        return (unwatched ?? outcome.unvisited, startError ?? outcome.startError)
    }

    /// Watches an open folder, returning the watch or `-errno`. Through `/proc/self/fd`, the
    /// folder watched is the very one opened (no component of its path is looked up again, so
    /// one swapped for a link meanwhile is not followed), whatever the length of its path.
    /// Without `/proc`, by its path, which must then be shorter than `PATH_MAX`.
    private func addWatch(on folder: FolderWalker.Folder, isInbox: Bool) -> Int32 {
        let wd: Int32
        if Self.canWatchDescriptors {
            wd = RawPath("/proc/self/fd/\(folder.descriptor)").withCString {
                inotify_add_watch(descriptor, $0, Self.folderMask)
            }
        } else if folder.path.count < PATH_MAX {
            let mask = Self.folderMask | (isInbox ? 0 : Self.dontFollow)
            wd = RawPath(bytes: folder.path).withCString { inotify_add_watch(descriptor, $0, mask) }
        } else {
            return -ENAMETOOLONG
        }
        return wd >= 0 ? wd : -errno
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

    private func report(_ error: WatchError, into events: inout [WatchEvent]) {
        report(error)
        events.append(.unwatched(error))
    }
}
