/// What an inbox watcher reports. Paths are absolute byte strings (Linux file names need not be UTF-8).
///
/// Every event means "look here"; none of them says a file is complete: the caller's settle
/// check decides that. Duplicates are possible and harmless.
public enum WatchEvent: Sendable, Hashable {
    /// A file may be ready at this full path: it was closed after writing (`IN_CLOSE_WRITE`),
    /// moved or renamed in (`IN_MOVED_TO`), or created (`IN_CREATE`) — the only event a hard
    /// link, FIFO, symlink or a file still held open produces — or a hold that `OpenWriters`
    /// counted ended otherwise. Files are never filtered: dotfiles and partial downloads are
    /// reported too, the caller decides what to ignore.
    case candidate(path: [UInt8])
    /// A folder appeared below the inbox (created, moved in, or renamed inside it). It and its
    /// sub-folders are already watched, so scanning it once now finds everything that landed in it.
    case folderAppeared(path: [UInt8])
    /// Events were lost (the kernel queue overflowed, the consumer fell behind, or a watch could
    /// not be added): rescan the whole inbox.
    case overflow
    /// Part of the inbox tree could not be watched (the watch limit, or no descriptor or memory
    /// left for a folder): say so to a person. Drops in folders not watched are found by the
    /// rescans only; an `.overflow` follows for the ones there now.
    case unwatched(WatchError)
    /// The inbox itself was deleted, moved away or unmounted.
    case inboxGone
    /// The inbox exists again and is watched again: rescan it.
    case inboxBack
}

extension WatchEvent {
    /// The path a `.candidate` or `.folderAppeared` event is about, `nil` for the others.
    public var path: [UInt8]? {
        switch self {
        case .candidate(let path), .folderAppeared(let path): return path
        case .overflow, .unwatched, .inboxGone, .inboxBack: return nil
        }
    }
}
