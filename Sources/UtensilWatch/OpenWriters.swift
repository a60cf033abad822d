import Glibc
import Synchronization
import UtensilCore

/// The files below the inbox that a writer still holds open after writing to them, as inotify
/// tells: shared by the watching thread, which keeps it current, and the scheduler, which does
/// not take such a file however long it rests.
///
/// Only what was seen counts. A file already there at start, or written while events were lost
/// (after an overflow the table is emptied), or in poll mode, is never held: settle alone decides.
public final class OpenWriters: Sendable {
    private let tracker = Mutex(WriterTracker())

    public init() {}

    /// Whether a writer holds the file at `inboxPath` (relative to the inbox) open after writing.
    public func holdsOpen(_ inboxPath: [UInt8]) -> Bool {
        tracker.withLock { $0.holdsOpen(inboxPath) }
    }

    func update<Result>(_ body: (inout WriterTracker) -> Result) -> Result {
        tracker.withLock { body(&$0) }
    }
}

/// The state of the files being written, from their inotify events, keyed by inbox-relative path.
///
/// A file is held from its first `IN_MODIFY`, or from the `IN_OPEN` that follows its `IN_CREATE`
/// (`open(O_CREAT)` sends both; a hard link, FIFO or symbolic link sends `IN_CREATE` alone),
/// until `IN_CLOSE_WRITE`. Being renamed in (`IN_MOVED_TO`) means complete. An `IN_CLOSE_NOWRITE`
/// ends a hold that no write confirmed: the open after the create was a reader's.
struct WriterTracker {
    enum State: Equatable {
        /// Created (`IN_CREATE`), not yet opened: a new file, or a hard link or FIFO, which never is.
        case created
        /// Opened right after its creation: most likely by its writer, nothing written yet.
        case openedAfterCreate
        /// Written to since the last `IN_CLOSE_WRITE`.
        case written

        var isHeld: Bool { self != .created }
    }

    /// Files tracked at most; beyond that, new ones are left to settle alone.
    static let capacity = 65_536

    private(set) var states: [[UInt8]: State] = [:]

    func holdsOpen(_ path: [UInt8]) -> Bool { states[path]?.isHeld ?? false }

    /// Applies one event on the file at `path`. Returns true when a writer's hold just ended, so
    /// that the caller can look at the file again.
    mutating func note(_ mask: UInt32, path: [UInt8]) -> Bool {
        func has(_ flag: Int32) -> Bool { mask & UInt32(bitPattern: flag) != 0 }
        let before = states[path]
        if has(IN_CREATE) {
            set(path, .created)
        } else if has(IN_OPEN) {
            if before == .created { set(path, .openedAfterCreate) }
        } else if has(IN_MODIFY) {
            set(path, .written)
        } else if has(IN_CLOSE_NOWRITE) {
            if before != .written { states[path] = nil }
        } else if has(IN_CLOSE_WRITE) || has(IN_MOVED_TO) || has(IN_MOVED_FROM) || has(IN_DELETE) {
            states[path] = nil
        }
        return (before?.isHeld ?? false) && !holdsOpen(path)
    }

    /// Forgets the files at and below `folder` (moved away, or watched afresh).
    mutating func forget(under folder: [UInt8]) {
        guard !states.isEmpty else { return }
        states = states.filter { !RawPath(bytes: $0.key).isSelfOrDescendant(of: RawPath(bytes: folder)) }
    }

    mutating func removeAll() { states.removeAll() }

    private mutating func set(_ path: [UInt8], _ state: State) {
        if states[path] == nil, states.count >= Self.capacity { return }
        states[path] = state
    }
}
