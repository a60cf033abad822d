import UtensilCatalogSQLite
import UtensilStorage

/// Why `utensild restore` installed nothing; each says in one sentence what is wrong and what
/// to do. The first bad file is named.
public enum RestoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The backup folder named does not exist.
    case noSuchFolder(String)
    /// No `backup.json`: not a backup folder, or a backup that never finished.
    case notABackup(String)
    /// `backup.json` cannot be read as a manifest, or says something that cannot be.
    case badManifest(path: String, problem: String)
    /// A file listed in `backup.json` is not in the backup.
    case missingFile(String)
    /// A file's bytes differ from its checksum in `backup.json`.
    case damagedFile(String)
    /// The backup's catalog is not a sound utensild catalog: unreadable, another schema, or a
    /// row that breaks the rules a drop meets (named).
    case badCatalog(path: String, problem: CatalogFileProblem)
    /// The new catalog could not be written or opened (a full disk, say).
    case catalogNotWritten(path: String, problem: String)
    /// The catalog and `backup.json` disagree.
    case inconsistent(path: String, problem: String)
    /// The state folder or the catalog already holds utensils.
    case notEmpty(String)
    /// The configured catalog of another backend than the state folder's SQLite file
    /// (PostgreSQL) already holds this many utensils.
    case catalogNotEmpty(catalog: String, utensils: Int)
    /// The configured catalog of another backend could not be read or could not take the
    /// backup's rows (unreachable, no rights, …).
    case catalogFailed(catalog: String, problem: String)
    /// The configured storage of the renditions (a bucket) already holds this many.
    case storageNotEmpty(storage: String, renditions: Int)
    /// The configured storage could not be read or written (down, keys refused, no bucket …).
    case storageFailed(storage: String, problem: String)
    /// The rows were loaded into the catalog but the renditions of this many utensils stay
    /// staged in the storage, not yet live: the daemon's start-up recovery puts them in place.
    case notPublished(storage: String, utensils: Int, problem: String)
    case fileSystem(SystemError)

    public var description: String {
        switch self {
        case .noSuchFolder(let path):
            "There is no folder \(path); give the folder `utensilctl backup` made."
        case .notABackup(let path):
            "\(path) has no backup.json, so it is not a finished backup; give the folder `utensilctl backup` made."
        case .badManifest(let path, let problem):
            "\(path) is damaged (\(problem)); restore from another backup."
        case .missingFile(let path):
            "\(path) is missing from the backup; restore from another backup."
        case .damagedFile(let path):
            "\(path) is damaged: its bytes differ from its checksum in backup.json; restore from another backup."
        case .badCatalog(let path, let problem):
            "\(path) cannot be restored: \(problem); nothing was installed, so \(problem.advice)."
        case .catalogNotWritten(let path, let problem):
            "The catalog \(path) could not be written (\(problem)); nothing was installed, so mend that and restore again."
        case .inconsistent(let path, let problem):
            "\(path) does not match the backup's catalog (\(problem)); restore from another backup."
        case .notEmpty(let what):
            "\(what); a backup is restored only into an empty catalog and state folder, so restore into a new state_dir or empty this one first."
        case .catalogNotEmpty(let catalog, let utensils):
            "The catalog \(catalog) already holds \(utensils) utensils; a backup is restored only into an empty catalog, so configure a new, empty database as catalog (or empty this one) and restore again."
        case .catalogFailed(let catalog, let problem):
            "The backup could not be loaded into the catalog \(catalog) (\(problem)); nothing was installed, so mend that and restore again."
        case .storageNotEmpty(let storage, let renditions):
            "The storage \(storage) already holds \(renditions) files of utensils; a backup is restored only into an empty storage, so configure an empty bucket or prefix (or empty this one) and restore again."
        case .storageFailed(let storage, let problem):
            "The backup could not be restored into the storage \(storage) (\(problem)); nothing was installed, so mend that and restore again."
        case .notPublished(let storage, let utensils, let problem):
            "The catalog holds the backup's rows, but the files of \(utensils) utensils are still staged in the storage \(storage) (\(problem)); start utensild with this configuration (its recovery puts them into place), then run `utensilctl check`."
        case .fileSystem(let error):
            "The backup could not be restored (\(error)); nothing was installed."
        }
    }
}

/// What a restore installed.
public struct RestoreSummary: Sendable, Equatable {
    public var utensils: Int
    public var trash: Int
    public var categories: Int
    public var files: Int
    public var bytes: Int64
    /// Files the utensils have none of in the backup (thumbnails to make again with `utensilctl rethumb --missing`).
    public var missing: Int
    /// Whether the backup's catalog was migrated to this utensild's schema.
    public var migrated: Bool
}
