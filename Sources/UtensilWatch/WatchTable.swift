/// Which watch descriptor watches which folder, and how deep below the inbox it is.
struct WatchTable {
    struct Entry: Equatable {
        var path: [UInt8]
        var depth: Int
    }

    private(set) var entries: [Int32: Entry] = [:]

    var count: Int { entries.count }

    subscript(wd: Int32) -> Entry? { entries[wd] }

    /// Records (or re-points, after a rename) a watch.
    mutating func set(_ wd: Int32, path: [UInt8], depth: Int) {
        entries[wd] = Entry(path: path, depth: depth)
    }

    @discardableResult
    mutating func remove(_ wd: Int32) -> Entry? { entries.removeValue(forKey: wd) }

    mutating func removeAll() { entries.removeAll() }

    /// The watches on `folder` and every folder below it.
    func watches(under folder: [UInt8]) -> Set<Int32> {
        Set(entries.compactMap { BytePath.isSelfOrDescendant($0.value.path, of: folder) ? $0.key : nil })
    }

    var allWatches: Set<Int32> { Set(entries.keys) }
}
