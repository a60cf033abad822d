import Glibc

/// `stat` questions about files.
enum FileProbe {
    /// Whether `path` exists and is a socket (following symbolic links, as `connect` would).
    static func isSocket(atPath path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFSOCK
    }

    /// Device and inode of an open file descriptor.
    static func identity(ofDescriptor descriptor: Int32) -> (device: UInt64, inode: UInt64)? {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        return (UInt64(status.st_dev), UInt64(status.st_ino))
    }
}
