import Glibc
import UtensilCore

extension UtensilConfiguration {
    /// Creates inbox, rejected, state_dir (+ originals/, thumbnails/) and the socket's folder when
    /// their parent exists; fails (naming the key) when a parent is missing, a path is not a
    /// folder, a folder is not writable, a file cannot be renamed from the inbox into `rejected`
    /// (another file system or mount point), or the socket path is taken by something other than a socket.
    ///
    /// Writability is tested by creating a file (unnamed with `O_TMPFILE`, or else a hidden
    /// `.tmp-probe-…`, invisible to the daemon; one a `kill -9` left behind is removed by the next
    /// start, here and by start-up reconciliation in the state folder), because root ignores permission bits
    /// but not a read-only mount. New folders get mode 0755 (0700 under state_dir: it is the daemon's alone), minus the umask;
    /// ownership and group access are left to systemd-tmpfiles and the unit.
    public func prepareFolders() throws(ConfigurationError) {
        try FolderPreparation.ensureFolder(inbox, key: .inbox, mode: 0o755)
        try FolderPreparation.ensureFolder(rejected, key: .rejected, mode: 0o755)
        // The move probe is a named file: a `kill -9` can leave one in either folder.
        FolderPreparation.removeStaleProbes(in: inbox)
        FolderPreparation.removeStaleProbes(in: rejected)
        try FolderPreparation.probeMovable(from: inbox, to: rejected)
        try FolderPreparation.ensureFolder(stateDir, key: .stateDir, mode: 0o700)
        try FolderPreparation.ensureFolder(stateDir + "/originals", key: .stateDir, mode: 0o700)
        try FolderPreparation.ensureFolder(stateDir + "/thumbnails", key: .stateDir, mode: 0o700)
        try FolderPreparation.ensureFolder(stateDir + "/previews", key: .stateDir, mode: 0o700)
        try FolderPreparation.ensureFolder(PathRules.parent(of: controlSocket), key: .controlSocket, mode: 0o755)
        try FolderPreparation.checkSocketPath(controlSocket)
    }
}

/// The file system work behind ``UtensilConfiguration/prepareFolders()``.
enum FolderPreparation {
    static func ensureFolder(_ path: String, key: ConfigKey, mode: mode_t) throws(ConfigurationError) {
        func unusable(_ problem: String) -> ConfigurationError { .unusableFolder(key, path: path, problem: problem) }

        var info = stat()
        if stat(path, &info) != 0 {
            let code = errno
            guard code == ENOENT else { throw unusable("cannot examine it: \(ConfigurationFile.errorText(code))") }
            let parent = PathRules.parent(of: path)
            var parentInfo = stat()
            guard stat(parent, &parentInfo) == 0, parentInfo.st_mode & S_IFMT == S_IFDIR else {
                throw unusable("its parent folder \(TOMLText.quoted(parent)) does not exist; create it first or choose another path")
            }
            if mkdir(path, mode) != 0, errno != EEXIST {
                throw unusable("cannot create it: \(ConfigurationFile.errorText(errno))")
            }
            guard stat(path, &info) == 0 else { throw unusable("cannot examine it: \(ConfigurationFile.errorText(errno))") }
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw unusable("it exists but is not a folder; remove it or choose another path")
        }
        try probeWritable(path, unusable: unusable)
    }

    /// Removes the probes of runs killed while probing (a `kill -9` at the wrong instant):
    /// empty regular files named `.tmp-probe-<pid>-…` owned by this user (no one else can
    /// have made them) whose process is gone. Anything else is left alone.
    static func removeStaleProbes(in folder: String) {
        guard let directory = opendir(folder) else { return }
        defer { closedir(directory) }
        let prefix = Array(probePrefix.utf8)
        while let entry = readdir(directory) {
            let name = DirectoryEntryName.bytes(of: entry)
            guard name.starts(with: prefix),
                  let pid = Int32(String(decoding: name[prefix.count...].prefix { $0 != UInt8(ascii: "-") }, as: UTF8.self)),
                  pid > 0, kill(pid, 0) != 0, errno == ESRCH else { continue }
            let path = folder + "/" + String(decoding: name, as: UTF8.self)
            var info = stat()
            guard String(validating: name, as: UTF8.self) != nil, lstat(path, &info) == 0,
                  info.st_mode & S_IFMT == S_IFREG, info.st_size == 0, info.st_uid == geteuid() else { continue }
            unlink(path)
        }
    }

    private static let probePrefix = ".tmp-probe-"


    /// A hidden probe file's name (`.tmp-probe-…`), invisible to the daemon.
    private static func probeName() -> String {
        "\(probePrefix)\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
    }

    /// Creates the empty probe file `path`, or throws what `unusable` makes of the refusal.
    private static func createProbe(_ path: String, unusable: (String) -> ConfigurationError) throws(ConfigurationError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw unusable(notWritable(errno)) }
        close(fd)
    }

    /// Why a file cannot be created in a folder, and what to do.
    private static func notWritable(_ code: Int32) -> String {
        "it is not writable (\(ConfigurationFile.errorText(code))); make it writable for the daemon's user or choose another folder"
    }

    /// Linux's `O_TMPFILE` (`__O_TMPFILE | O_DIRECTORY`), which Swift's Glibc module leaves out.
    static let openUnnamedFile: Int32 = 0o20000000 | O_DIRECTORY

    /// Creates a file in `folder` and removes it: the honest test, also for root and read-only
    /// mounts. An unnamed one (`O_TMPFILE`) where the file system has them: a `kill -9` leaves
    /// nothing, so the folder is never listed for leftovers (originals/ may hold a million
    /// names). Elsewhere a named hidden file, after removing those killed runs left.
    private static func probeWritable(_ folder: String, unusable: (String) -> ConfigurationError) throws(ConfigurationError) {
        let fd = open(folder, openUnnamedFile | O_WRONLY | O_CLOEXEC, 0o600)
        if fd >= 0 {
            close(fd)
            return
        }
        let code = errno
        guard code == EOPNOTSUPP || code == EISDIR || code == EINVAL else { throw unusable(notWritable(code)) }
        removeStaleProbes(in: folder)
        let probe = folder + "/" + probeName()
        try createProbe(probe, unusable: unusable)
        guard unlink(probe) == 0 else {
            throw unusable("cannot remove files in it (\(ConfigurationFile.errorText(errno))); make it writable for the daemon's user")
        }
    }

    /// Renames a hidden file from the inbox into `rejected`, as a rejection does: rename(2)
    /// cannot cross file systems or mount points, and a rejection that cannot happen would
    /// leave the drop in the inbox for ever.
    static func probeMovable(from inbox: String, to rejected: String) throws(ConfigurationError) {
        let name = probeName()
        let (probe, moved) = (inbox + "/" + name, rejected + "/" + name)
        try createProbe(probe) { .unusableFolder(.inbox, path: inbox, problem: $0) }
        if rename(probe, moved) == 0 {
            unlink(moved)
            return
        }
        let code = errno
        unlink(probe)
        if code == EXDEV {
            throw .unusableFolder(.rejected, path: rejected, problem: "it is on another file system or mount point than the inbox \(TOMLText.quoted(inbox)), and failed drops are moved there by rename, which cannot cross them; choose a folder beside the inbox, on the same mount")
        }
        throw .unusableFolder(.rejected, path: rejected, problem: "a file cannot be moved into it from the inbox (\(ConfigurationFile.errorText(code))); make it writable for the daemon's user")
    }

    /// An existing entry at the socket path must be a (stale) socket, which the daemon may replace.
    static func checkSocketPath(_ path: String) throws(ConfigurationError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFSOCK else {
            throw .unusableFolder(.controlSocket, path: path,
                                  problem: "it exists and is not a socket; remove it or choose another path")
        }
    }
}
