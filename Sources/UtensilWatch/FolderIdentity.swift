import Glibc
import UtensilCore

/// A folder's (device, inode) pair: identifies it whatever path leads to it.
public struct FolderIdentity: Hashable, Sendable {
    public var device: UInt64
    public var inode: UInt64

    public init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }

    /// The identity of the folder at `path` (symlinks followed), or `nil` if there is none.
    public init?(folderAt path: [UInt8]) {
        var info = stat()
        guard RawPath(bytes: path).withCString({ stat($0, &info) }) == 0,
              info.st_mode & S_IFMT == S_IFDIR else { return nil }
        self.init(info)
    }

    init(_ info: stat) {
        self.init(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }
}
