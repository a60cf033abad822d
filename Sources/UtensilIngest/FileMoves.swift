/// File moves the daemon's control commands need, with the engine's guarantees.
public enum FileMoves {
    /// Renames without ever replacing an existing file (throws EEXIST instead).
    public static func renameNoReplace(_ from: String, _ to: String) throws(SystemError) {
        try FileOps.renameNoReplace(RawPath(from), to: RawPath(to))
    }

    /// Removes a file; a file already gone is fine.
    public static func remove(_ path: String) throws(SystemError) {
        do {
            try FileOps.unlink(RawPath(path))
        } catch where error.isNotFound {
            return
        }
    }
}
