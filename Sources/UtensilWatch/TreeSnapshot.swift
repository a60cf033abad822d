import Glibc

/// What one listing of the inbox tree saw, for poll mode: every non-folder entry with the
/// (size, mtime, inode) that tells whether it changed.
struct TreeSnapshot {
    struct Signature: Equatable {
        var size: Int64
        var modifiedSeconds: Int64
        var modifiedNanoseconds: Int64
        var inode: UInt64
    }

    private(set) var files: [[UInt8]: Signature] = [:]
    /// A folder left unlisted for want of descriptors or memory.
    var unlisted: WatchError?

    /// Lists the tree below `inbox` with the walker's rules; `nil` if the inbox is not there.
    static func take(of inbox: [UInt8], walker: FolderWalker) -> TreeSnapshot? {
        guard InboxCheck.problem(with: inbox) == nil else { return nil }
        var snapshot = TreeSnapshot()
        let outcome = walker.walk(inbox: inbox, folder: { _ in .descend }, file: { path, info in
            snapshot.files[path] = Signature(
                size: Int64(info.st_size),
                modifiedSeconds: Int64(info.st_mtim.tv_sec),
                modifiedNanoseconds: Int64(info.st_mtim.tv_nsec),
                inode: UInt64(info.st_ino))
        })
        snapshot.unlisted = outcome.unvisited
        return outcome.startError == nil ? snapshot : nil
    }

    /// Paths that are new or changed in `self` compared with `previous`, in byte order.
    func changes(since previous: TreeSnapshot) -> [[UInt8]] {
        files.compactMap { path, signature in previous.files[path] == signature ? nil : path }
            .sorted { $0.lexicographicallyPrecedes($1) }
    }
}
