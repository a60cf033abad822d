import Glibc
import UtensilCore

/// Which kind of file system a path is on, from `statfs`'s magic number.
public enum FileSystemKind {
    /// The file-system type name for logs ("ext4", "nfs", "fuse", "tmpfs", …, or
    /// "unknown (0x…)"), of `path` or, if it does not exist yet, of its nearest existing
    /// parent folder. `nil` if nothing along the path can be examined.
    public static func name(of path: [UInt8]) -> String? {
        magic(of: path).map(name(forMagic:))
    }

    /// Whether `path` (or its nearest existing parent) is on a network, cluster or FUSE file
    /// system, where inotify does not see writes made elsewhere.
    public static func isRemoteOrFUSE(_ path: [UInt8]) -> Bool {
        magic(of: path).map(isRemoteOrFUSE(magic:)) ?? false
    }

    // MARK: The table

    struct Kind {
        var name: String
        var remote: Bool
    }

    /// Magic numbers from <linux/magic.h> and statfs(2), plus a few out-of-tree ones.
    static let kinds: [UInt32: Kind] = [
        // Network, cluster, host-shared and FUSE: writes from elsewhere are invisible to inotify.
        0x6969: Kind(name: "nfs", remote: true),
        0x517B: Kind(name: "smb", remote: true),
        0xFF53_4D42: Kind(name: "cifs", remote: true),
        0xFE53_4D42: Kind(name: "smb2", remote: true),
        0x6573_5546: Kind(name: "fuse", remote: true),
        0x0102_1997: Kind(name: "9p", remote: true),
        0x00C3_6400: Kind(name: "ceph", remote: true),
        0x5346_414F: Kind(name: "afs", remote: true),
        0x6B41_4653: Kind(name: "kafs", remote: true),
        0x7375_7245: Kind(name: "coda", remote: true),
        0x564C: Kind(name: "ncpfs", remote: true),
        0x7461_636F: Kind(name: "ocfs2", remote: true),
        0x0116_1970: Kind(name: "gfs2", remote: true),
        0x0BD0_0BD0: Kind(name: "lustre", remote: true),
        0x4750_4653: Kind(name: "gpfs", remote: true),
        0x786F_4256: Kind(name: "vboxsf", remote: true),
        0x00C0_FFEE: Kind(name: "hostfs", remote: true),
        // Local.
        0xEF53: Kind(name: "ext4", remote: false),  // also ext2 and ext3
        0x5846_5342: Kind(name: "xfs", remote: false),
        0x9123_683E: Kind(name: "btrfs", remote: false),
        0x0102_1994: Kind(name: "tmpfs", remote: false),
        0x8584_58F6: Kind(name: "ramfs", remote: false),
        0x794C_7630: Kind(name: "overlay", remote: false),
        0x2FC1_2FC1: Kind(name: "zfs", remote: false),
        0xF2F5_2010: Kind(name: "f2fs", remote: false),
        0xCA45_1A4E: Kind(name: "bcachefs", remote: false),
        0x5265_4973: Kind(name: "reiserfs", remote: false),
        0x3153_464A: Kind(name: "jfs", remote: false),
        0x3434: Kind(name: "nilfs", remote: false),
        0x4D44: Kind(name: "vfat", remote: false),
        0x2011_BAB0: Kind(name: "exfat", remote: false),
        0x5346_544E: Kind(name: "ntfs", remote: false),
        0x7366_746E: Kind(name: "ntfs3", remote: false),
        0x482B: Kind(name: "hfsplus", remote: false),
        0x1501_3346: Kind(name: "udf", remote: false),
        0x9660: Kind(name: "iso9660", remote: false),
        0x7371_7368: Kind(name: "squashfs", remote: false),
        0xE0F5_E1E2: Kind(name: "erofs", remote: false),
        0xF15F: Kind(name: "ecryptfs", remote: false),
        0x9FA0: Kind(name: "proc", remote: false),
        0x6265_6572: Kind(name: "sysfs", remote: false),
    ]

    static func name(forMagic magic: UInt32) -> String {
        kinds[magic]?.name ?? "unknown (0x\(String(magic, radix: 16)))"
    }

    static func isRemoteOrFUSE(magic: UInt32) -> Bool {
        kinds[magic]?.remote ?? false
    }

    // MARK: statfs

    /// `f_type` of `path` or of its nearest existing parent.
    static func magic(of path: [UInt8]) -> UInt32? {
        var candidate = RawPath(bytes: path).normalized.bytes
        var parents = RawPath(bytes: candidate).ancestors.map(\.bytes)[...]
        while true {
            switch statfsType(candidate) {
            case .success(let magic):
                return magic
            case .failure(let error) where error.code == ENOENT || error.code == ENOTDIR:
                guard let parent = parents.popFirst() else { return nil }
                candidate = parent
            case .failure:
                return nil
            }
        }
    }

    private struct SystemError: Error { var code: Int32 }

    /// Calls glibc's `statfs`, which the Swift Glibc module does not import (<sys/vfs.h> is not
    /// part of it), through `dlsym`. Only `f_type` is read: the first field of `struct statfs`,
    /// a `long`, on every Linux ABI.
    private static func statfsType(_ path: [UInt8]) -> Result<UInt32, SystemError> {
        typealias StatFS = @convention(c) (UnsafePointer<CChar>, UnsafeMutableRawPointer) -> Int32
        guard let library = dlopen(nil, RTLD_NOW) else { return .failure(SystemError(code: ENOSYS)) }
        defer { dlclose(library) }
        guard let symbol = dlsym(library, "statfs") else { return .failure(SystemError(code: ENOSYS)) }
        let statfs = unsafeBitCast(symbol, to: StatFS.self)
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 512, alignment: 16)  // ≥ sizeof(struct statfs)
        defer { buffer.deallocate() }
        guard RawPath(bytes: path).withCString({ statfs($0, buffer) }) == 0 else {
            return .failure(SystemError(code: errno))
        }
        return .success(UInt32(truncatingIfNeeded: buffer.load(as: Int.self)))
    }
}
