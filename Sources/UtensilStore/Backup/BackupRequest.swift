import Foundation
import UtensilStorage

/// Where a backup goes and what the caller saw there.
public struct BackupRequest: Sendable, Equatable {
    /// The new folder, an absolute path.
    public var destination: String
    /// Device and inode of the destination's parent folder as the caller saw it: a daemon
    /// that sees another folder there (a private `/tmp`) refuses rather than writes where
    /// the caller will never find it.
    public var parentIdentity: FileIdentity?
    /// The utensild version written into `backup.json`.
    public var utensildVersion: String

    public init(destination: String, parentIdentity: FileIdentity?, utensildVersion: String) {
        self.destination = destination
        self.parentIdentity = parentIdentity
        self.utensildVersion = utensildVersion
    }
}

/// How far a backup is.
public enum BackupProgress: Sendable, Equatable {
    /// The catalog's snapshot is taken and written out.
    case catalogWritten(utensils: Int)
    /// Files of `total` utensils done.
    case files(done: Int, total: Int)
}

/// What a finished backup holds.
public struct BackupSummary: Sendable, Equatable {
    public var destination: String
    /// When the snapshot was taken (`backup.json`'s `createdAt`).
    public var createdAt: Date
    public var manifest: BackupManifest
    /// Files that are hard links to the state folder's (no bytes copied), and files copied.
    public var linked: Int
    public var copied: Int
}

