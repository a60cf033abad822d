import Glibc

/// The checks on `on_ingest` and `on_reject`: the program must exist now, be a regular file
/// (after following links) and be executable by the daemon's user, so that a typo shows at
/// `--check-config` rather than as a failure after every ingest.
enum HookProgram {
    /// `path` (absolute, normalised) when it names a program the daemon can run.
    static func check(_ path: String) throws(SettingProblem) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR {
                throw SettingProblem("does not exist; install the program there or correct the path")
            }
            throw SettingProblem("cannot be examined (\(ConfigurationFile.errorText(code))); make it readable for the daemon's user")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw SettingProblem("is not a regular file; name the program itself")
        }
        guard access(path, X_OK) == 0 else {
            throw SettingProblem("is not executable by the daemon's user; run chmod +x on it or correct the path")
        }
        return path
    }
}
