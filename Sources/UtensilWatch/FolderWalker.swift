import Glibc

/// Walks the folder tree below the inbox with the rules both watchers share: symlinked folders
/// are never followed, `skipFolder` names and `excluded` folders are not entered, and nothing
/// deeper than `maxDepth` levels below the inbox is visited.
struct FolderWalker {
    /// Folders at most this many levels below the inbox are visited.
    static let maxDepth = 32

    /// What to do after visiting a folder.
    enum Visit { case descend, skipChildren, abort }

    let skipFolder: @Sendable ([UInt8]) -> Bool
    let excluded: Set<FolderIdentity>

    /// Visits the folder at `path` (`depth` levels below the inbox) and the folders below it:
    /// `folder` is called for each (before its entries are listed), `file` for every entry that
    /// is not a folder, with its `lstat` information.
    ///
    /// The inbox itself (`isInbox`) may be a symlink and is never excluded. A folder that
    /// vanished or cannot be opened is passed over silently. Returns `false` if `folder` aborted.
    @discardableResult
    func walk(
        _ path: [UInt8], depth: Int, isInbox: Bool = false,
        folder: ([UInt8], Int) -> Visit,
        file: (([UInt8], stat) -> Void)? = nil
    ) -> Bool {
        guard depth <= Self.maxDepth else { return true }
        let flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | (isInbox ? 0 : O_NOFOLLOW)
        let descriptor = BytePath.withCString(path) { open($0, flags) }
        guard descriptor >= 0 else { return true }
        var info = stat()
        guard fstat(descriptor, &info) == 0,
              isInbox || !excluded.contains(FolderIdentity(info)) else {
            close(descriptor)
            return true
        }
        switch folder(path, depth) {
        case .abort:
            close(descriptor)
            return false
        case .skipChildren:
            close(descriptor)
            return true
        case .descend:
            break
        }
        let subfolders = list(descriptor, path: path, depth: depth, file: file)
        for name in subfolders {
            let child = BytePath.join(path, name)
            if !walk(child, depth: depth + 1, folder: folder, file: file) { return false }
        }
        return true
    }

    /// Lists an open folder (and closes it), reporting files; returns the sub-folder names to enter.
    private func list(
        _ descriptor: Int32, path: [UInt8], depth: Int, file: (([UInt8], stat) -> Void)?
    ) -> [[UInt8]] {
        guard let directory = fdopendir(descriptor) else {
            close(descriptor)
            return []
        }
        defer { closedir(directory) }
        let folderFD = dirfd(directory)
        var subfolders: [[UInt8]] = []
        while let entry = readdir(directory) {
            let name = Self.name(of: entry)
            if name == [UInt8(ascii: ".")] || name == [UInt8(ascii: "."), UInt8(ascii: ".")] { continue }
            var type = Int(entry.pointee.d_type)
            var info: stat?
            if type == DT_UNKNOWN || (file != nil && type != DT_DIR) {
                var entryInfo = stat()
                let status = BytePath.withCString(name) {
                    fstatat(folderFD, $0, &entryInfo, AT_SYMLINK_NOFOLLOW)
                }
                guard status == 0 else { continue }  // vanished meanwhile
                info = entryInfo
                type = entryInfo.st_mode & S_IFMT == S_IFDIR ? DT_DIR : DT_REG
            }
            if type == DT_DIR {
                if depth < Self.maxDepth, !skipFolder(name) { subfolders.append(name) }
            } else if let file, let info {
                file(BytePath.join(path, name), info)
            }
        }
        return subfolders
    }

    /// The bytes of `d_name`, up to its NUL.
    private static func name(of entry: UnsafeMutablePointer<dirent>) -> [UInt8] {
        withUnsafeBytes(of: &entry.pointee.d_name) { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            let end = bytes.firstIndex(of: 0) ?? bytes.count
            return Array(bytes[..<end])
        }
    }
}
