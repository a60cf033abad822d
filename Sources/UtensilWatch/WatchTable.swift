import UtensilCore

/// Which watch descriptor watches which folder.
struct WatchTable {
    struct Entry: Equatable {
        var path: [UInt8]
    }

    private(set) var entries: [Int32: Entry] = [:]
    /// The reverse map, so that "is anything watched at or below this path" is cheap in the
    /// common case of a brand-new folder (folders are watched top-down: nothing below an
    /// unwatched path is watched).
    private var byPath: [[UInt8]: Int32] = [:]

    var count: Int { entries.count }

    subscript(wd: Int32) -> Entry? { entries[wd] }

    /// Records (or re-points, after a rename) a watch.
    mutating func set(_ wd: Int32, path: [UInt8]) {
        if let old = entries[wd], byPath[old.path] == wd { byPath[old.path] = nil }
        entries[wd] = Entry(path: path)
        byPath[path] = wd
    }

    @discardableResult
    mutating func remove(_ wd: Int32) -> Entry? {
        guard let old = entries.removeValue(forKey: wd) else { return nil }
        if byPath[old.path] == wd { byPath[old.path] = nil }
        return old
    }

    mutating func removeAll() {
        entries.removeAll()
        byPath.removeAll()
    }

    /// The watches on `folder` and every folder below it.
    func watches(under folder: [UInt8]) -> Set<Int32> {
        guard byPath[folder] != nil else { return [] }
        return Set(entries.compactMap { RawPath(bytes: $0.value.path).isSelfOrDescendant(of: RawPath(bytes: folder)) ? $0.key : nil })
    }

    var allWatches: Set<Int32> { Set(entries.keys) }
}
