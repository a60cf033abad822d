import Glibc
import Logging
import UtensilCore
import UtensilStorage

/// The state folder is the daemon's alone: members of the `utensil` group drop photos and
/// read `rejected/`, but reach the catalog and the stored photos only through `utensilctl`
/// (and the web gallery). So folders under `state_dir` are `0700` and files `0600`.
///
/// New files and folders are created so (`FileOps`); at start, folders left looser by an
/// older version or by hand are tightened, and the catalog's file is created `0600` before
/// SQLite opens it (its `-wal` and `-shm` files take their mode from it).
public enum StatePermissions {
    public static let folderMode: mode_t = LocalFolderStorage.folderMode
    public static let fileMode: mode_t = LocalFolderStorage.fileMode

    /// Tightens what start-up finds; never fatal (a folder the daemon does not own is logged).
    /// With `sqliteCatalog` (the catalog is the file in the state folder) that file is made
    /// first, `0600`; a PostgreSQL catalog leaves none.
    public static func tighten(_ settings: IngestSettings, sqliteCatalog: Bool = true, logger: Logger) {
        for folder in [settings.stateDirectory, settings.originals, settings.thumbnails, settings.previews, settings.staging] {
            restrict(folder, to: folderMode, logger: logger)
        }
        var files = [settings.stateDirectory.appending(settings.ownFiles.lock), settings.decodingSlots]
        if sqliteCatalog {
            let catalog = RawPath(settings.catalogPath)
            let fd = catalog.withCString { open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, fileMode) }
            if fd >= 0 { close(fd) }
            files += [catalog, RawPath(settings.catalogPath + "-wal"), RawPath(settings.catalogPath + "-shm")]
        }
        for file in files {
            restrict(file, to: fileMode, logger: logger)
        }
    }

    /// Removes permission bits beyond `mode` from `path` (not following a link); a missing
    /// path is fine.
    static func restrict(_ path: RawPath, to mode: mode_t, logger: Logger) {
        guard let status = try? FileOps.lstat(path), status.kind == .directory || status.kind == .regular else { return }
        var raw = stat()
        guard path.withCString({ Glibc.lstat($0, &raw) }) == 0, raw.st_mode & 0o7777 & ~mode != 0 else { return }
        if path.withCString({ chmod($0, raw.st_mode & mode) }) == 0 {
            logger.notice("Made \(path) private to utensild (mode \(String(raw.st_mode & mode, radix: 8)), was \(String(raw.st_mode & 0o7777, radix: 8)))")
        } else {
            logger.warning("Cannot make \(path) private to utensild: \(String(cString: strerror(errno))); group members may read it")
        }
    }
}
