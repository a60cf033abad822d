import Glibc

/// What `lstat`/`fstat` say of a file, reduced to what the engine decides on.
public struct FileStatus: Sendable, Hashable {
    public enum Kind: String, Sendable {
        case regular, directory, symlink, fifo, socket, characterDevice, blockDevice, unknown
    }

    public var kind: Kind
    public var identity: FileIdentity
    public var size: Int
    public var modificationNanoseconds: Int64
    /// When the inode last changed (its bytes, its size, its links or its mode): a file
    /// rewritten in place within the same clock tick as it was read still shows here.
    public var changeNanoseconds: Int64
    /// The uid owning the file: who dropped it.
    public var owner: UInt32

    /// What `raw` says.
    public init(_ raw: stat) {
        switch raw.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        case S_IFLNK: kind = .symlink
        case S_IFIFO: kind = .fifo
        case S_IFSOCK: kind = .socket
        case S_IFCHR: kind = .characterDevice
        case S_IFBLK: kind = .blockDevice
        default: kind = .unknown
        }
        identity = FileIdentity(device: UInt64(raw.st_dev), inode: UInt64(raw.st_ino))
        size = Int(raw.st_size)
        modificationNanoseconds = Int64(raw.st_mtim.tv_sec) * 1_000_000_000 + Int64(raw.st_mtim.tv_nsec)
        changeNanoseconds = Int64(raw.st_ctim.tv_sec) * 1_000_000_000 + Int64(raw.st_ctim.tv_nsec)
        owner = UInt32(raw.st_uid)
    }

    /// The identity of this version of the file: the same inode with the same size and
    /// modification time. Decoder crashes are counted by it; with the drop's inbox path it
    /// makes the utensil's source key (see `IngestEngine.sourceKey(_:at:)`).
    public var versionKey: String {
        "\(identity.device):\(identity.inode):\(size):\(modificationNanoseconds)"
    }

    /// ``versionKey`` without the device number, which each host that mounts a shared (network)
    /// folder numbers its own way: the same on every host. The inode number is the server's
    /// file id on NFS, so with the size and modification time it still names one version of one
    /// file; the engine uses it when other hosts share the state folder.
    public var portableVersionKey: String {
        "\(identity.inode):\(size):\(modificationNanoseconds)"
    }
}

/// A file's (device, inode): what "the same file" means while names come and go.
public struct FileIdentity: Hashable, Sendable {
    public var device: UInt64
    public var inode: UInt64

    public init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }
}
