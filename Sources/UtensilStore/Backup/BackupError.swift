import Glibc
import UtensilCatalogModel
import UtensilCore
import UtensilStorage

/// Why `utensilctl backup` made no backup; each says, in one sentence, what to do. Whatever
/// the backup had written is removed again.
public enum BackupError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The destination is not an absolute path to a new folder's name.
    case invalidDestination(String)
    case destinationExists(String)
    /// The folder to make the backup in does not exist (for the daemon).
    case parentMissing(String)
    /// The caller's folder and the daemon's differ: a private `/tmp` (`PrivateTmp=`) or
    /// another mount namespace.
    case parentNotShared(parent: String, stateDir: String)
    /// The unit's sandbox makes the folder read-only for the daemon (`ProtectSystem=strict`).
    case readOnlyForDaemon(parent: String, stateDir: String)
    /// The daemon's user may not create folders there.
    case noPermission(parent: String, user: String)
    /// The destination lies inside a folder the daemon watches or manages (the inbox, `originals/` …).
    case insideState(String)
    /// The catalog could not be read or written out.
    case catalog(CatalogError)
    /// A utensil's original is not where it should be (`utensilctl check` says more).
    case originalMissing(id: String, path: String)
    /// A copied original's bytes differ from the checksum the catalog recorded.
    case originalDamaged(id: String, path: String)
    /// Utensils were deleted or replaced between the snapshot and their files' turn, at
    /// every attempt.
    case keptChanging(attempts: Int)
    case fileSystem(SystemError)
    /// The storage (a bucket) could not be read: its sentence.
    case storage(String)
    /// The client went away; nothing is left behind.
    case cancelled

    public var description: String {
        switch self {
        case .invalidDestination(let path):
            "\(path) is not a usable name for a new backup folder; give an absolute path to a folder that does not exist yet."
        case .destinationExists(let path):
            "\(path) exists already; a backup goes into a new folder, so name one that does not exist yet."
        case .parentMissing(let parent):
            "utensild sees no folder \(parent); create it first, or back up into a folder that exists."
        case .parentNotShared(let parent, let stateDir):
            "utensild does not see the same \(parent) as you (its unit gives it a private /tmp, PrivateTmp=yes); back up into a folder you share with it, such as one under \(stateDir)."
        case .readOnlyForDaemon(let parent, let stateDir):
            "utensild's sandbox lets it write only its own folders, and \(parent) is not one of them; back up under \(stateDir) (hard links, instant), or add the folder to ReadWritePaths= with `systemctl edit utensild`."
        case .noPermission(let parent, let user):
            "utensild runs as \(user), which may not create folders in \(parent); let it (chown \(user) \(parent)), or back up into its state folder."
        case .insideState(let path):
            "\(path) lies inside a folder utensild watches or keeps photos in; choose a folder outside the inbox, rejected/, originals/, thumbnails/ and staging/."
        case .catalog(let error):
            "The catalog cannot be backed up just now (\(error)); try again in a moment."
        case .originalMissing(let id, let path):
            "The original of utensil \(id) is missing (\(path)); run `utensilctl check`, mend what it reports, then back up again."
        case .originalDamaged(let id, let path):
            "The original of utensil \(id) (\(path)) no longer matches its checksum; run `utensilctl check` and restore that photo, then back up again."
        case .keptChanging(let attempts):
            "Utensils were deleted or replaced during each of \(attempts) attempts; try again when fewer changes are being made."
        case .fileSystem(let error):
            "The backup could not be written (\(error)); nothing of it was left behind."
        case .storage(let problem):
            "The renditions could not be read from the storage (\(problem)); nothing of the backup was left behind."
        case .cancelled:
            "The backup was cancelled; nothing of it was left behind."
        }
    }
}
