import Foundation

/// Where `backup` writes: a new folder, and what the client saw there.
public struct BackupDestination: Sendable, Equatable {
    /// The new folder, an absolute path.
    public var path: String
    /// Device and inode of the folder's parent as the client saw it (`stat`): a daemon that
    /// sees another folder there (a private `/tmp`) refuses.
    public var parentDevice: UInt64?
    public var parentInode: UInt64?

    public init(path: String, parentDevice: UInt64? = nil, parentInode: UInt64? = nil) {
        self.path = path
        self.parentDevice = parentDevice
        self.parentInode = parentInode
    }
}

/// `backup`'s final reply: what the finished backup holds.
public struct BackupInfo: Codable, Sendable, Equatable, ControlReplyPayload {
    /// The backup folder.
    public var destination: String
    /// When its snapshot was taken.
    public var createdAt: Date
    /// Utensils not in the trash, and in it.
    public var utensils: Int
    public var trash: Int
    public var categories: Int
    /// Files of `originals/`, `thumbnails/` … in the backup, and their bytes.
    public var files: Int
    public var bytes: Int64
    /// Of `files`, those hard-linked to the state folder's (no bytes copied) and those copied.
    public var linked: Int
    public var copied: Int
    /// Files the utensils should have had but had not (thumbnails to make again).
    public var missing: Int

    public init(
        destination: String, createdAt: Date, utensils: Int, trash: Int, categories: Int, files: Int, bytes: Int64,
        linked: Int, copied: Int, missing: Int
    ) {
        self.destination = destination
        self.createdAt = createdAt
        self.utensils = utensils
        self.trash = trash
        self.categories = categories
        self.files = files
        self.bytes = bytes
        self.linked = linked
        self.copied = copied
        self.missing = missing
    }
}

/// One of the lines a `backup` sends before its final reply, under `"backupProgress"`.
public struct BackupProgressInfo: Codable, Sendable, Equatable, ControlReplyPayload {
    /// `catalog` (the snapshot is written out) or `files`.
    public enum Phase: String, Codable, Sendable, CaseIterable {
        case catalog, files
    }

    public var phase: Phase
    /// Utensils whose files are done, of `total` (every utensil of the snapshot).
    public var done: Int
    public var total: Int

    public init(phase: Phase, done: Int, total: Int) {
        self.phase = phase
        self.done = done
        self.total = total
    }
}

/// A line of `backup`'s answer: progress, or the end.
public enum BackupLine: Sendable, Equatable {
    case progress(BackupProgressInfo)
    case finished(BackupInfo)
}

extension LineFraming {
    /// One line of `backup`'s answer: `"backupProgress"` lines, then `"backup"` (or an error).
    public static func decodeBackupLine(_ line: some DataProtocol) throws -> Result<BackupLine, ControlError> {
        if let progress = try? decodeReply(BackupProgressInfo.self, key: ControlCommand.backupProgressKey, from: line) {
            return progress.map(BackupLine.progress)
        }
        return try decodeReply(BackupInfo.self, key: ControlCommand.backup.replyKey, from: line).map(BackupLine.finished)
    }
}

extension ControlReply {
    /// One progress line of a `backup`.
    public static func backupProgress(_ progress: BackupProgressInfo) -> ControlReply {
        .success(progress, key: ControlCommand.backupProgressKey)
    }
}
