import Foundation

/// File moves the daemon's control commands need, with the engine's guarantees.
public enum FileMoves {
    /// Renames without ever replacing an existing file (throws EEXIST instead).
    public static func renameNoReplace(_ from: String, _ to: String) throws(SystemError) {
        try FileOps.renameNoReplace(RawPath(from), to: RawPath(to))
    }

    /// Renames without ever replacing an existing file (throws EEXIST instead).
    public static func renameNoReplace(_ from: RawPath, _ to: RawPath) throws(SystemError) {
        try FileOps.renameNoReplace(from, to: to)
    }

    /// A fresh name for a file set aside for a moment; start-up reconciliation removes such
    /// names left in `rejected/` by a crash.
    public static func temporaryName() -> [UInt8] {
        Array((FileOps.temporaryPrefix + UUID().uuidString).utf8)
    }

    /// Removes a file; a file already gone is fine.
    public static func remove(_ path: String) throws(SystemError) {
        try remove(RawPath(path))
    }

    /// Removes a file; a file already gone is fine.
    public static func remove(_ path: RawPath) throws(SystemError) {
        do {
            try FileOps.unlink(path)
        } catch where error.isNotFound {
            return
        }
    }

    /// The names in a folder, as the bytes Linux stores (they need not be UTF-8).
    public static func names(in folder: RawPath) throws(SystemError) -> [[UInt8]] {
        try FileOps.list(folder)
    }

    /// What `lstat` says of `path` (a symbolic link is not followed).
    public static func status(_ path: RawPath) throws(SystemError) -> FileStatus {
        try FileOps.lstat(path)
    }
}
