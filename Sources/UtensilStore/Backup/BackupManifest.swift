import Foundation
import UtensilCore

/// `backup.json`: what a backup holds, written last (a folder without it is not a finished
/// backup). Counts, and for every file its size and SHA-256, so that `utensild restore` can
/// verify each one before it installs anything.
public struct BackupManifest: Codable, Sendable, Equatable {
    /// Always `utensild-backup`.
    public var format: String
    /// The layout's version; `utensild restore` refuses one it does not know.
    public var formatVersion: Int
    /// The utensild that made it.
    public var utensildVersion: String
    /// When its snapshot was taken (ISO 8601 UTC with milliseconds).
    public var createdAt: String
    public var counts: Counts
    /// `utensils.sqlite`: the catalog of the snapshot, whatever the daemon's catalog is.
    public var catalog: File
    /// Every file of `originals/`, `thumbnails/` … the snapshot's utensils have, in path order.
    public var files: [File]
    /// Files the snapshot's utensils should have but had not when it was taken (thumbnails,
    /// say, that `utensilctl rethumb --missing` makes again), as paths.
    public var missing: [String]

    public struct Counts: Codable, Sendable, Equatable {
        /// Utensils not in the trash.
        public var utensils: Int
        /// Utensils in the trash.
        public var trash: Int
        public var categories: Int
        /// Entries of `files`.
        public var files: Int
        /// Their bytes together (the catalog not counted).
        public var bytes: Int64
    }

    /// One file: its path below the backup folder, size and lower-case hex SHA-256.
    public struct File: Codable, Sendable, Equatable {
        public var path: String
        public var bytes: Int64
        public var sha256: String
    }

    public static let formatName = "utensild-backup"
    public static let currentFormatVersion = 1
    /// Its file name in the backup folder.
    public static let fileName = "backup.json"
    /// The catalog's file name in the backup folder (and in `state_dir`).
    public static let catalogFileName = "utensils.sqlite"

    /// Pretty-printed with sorted keys: a person may read it, and the same backup is the same text.
    func encoded() throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(self)) + [UInt8(ascii: "\n")]
    }

    package static func decode(_ bytes: [UInt8]) throws -> BackupManifest {
        try JSONDecoder().decode(BackupManifest.self, from: Data(bytes))
    }
}

/// The folders of `state_dir` a backup carries, and which file of a utensil each holds.
/// One for each ``Rendition``, named by ``StateLayout``: a rendition added there is carried by
/// backup and restore too.
public struct BackupFolder: Sendable {
    public var name: String
    /// The file of a utensil in this folder, from its id and its original's extension.
    public var fileName: @Sendable (_ id: UUID, _ fileExtension: String) -> String
    /// The originals: every utensil must have its file here, and its checksum is the one the
    /// catalog recorded. A file missing from another folder (a thumbnail, which
    /// `utensilctl rethumb --missing` makes again) is noted in the manifest's `missing`.
    public var holdsOriginals: Bool = false

    /// Every rendition's folder, in ``Rendition``'s order (originals, thumbnails, previews).
    public static let all: [BackupFolder] = Rendition.allCases.map { rendition in
        BackupFolder(
            name: StateLayout.folderName(of: rendition),
            fileName: { StateLayout.fileName(of: rendition, id: $0, fileExtension: $1) },
            holdsOriginals: rendition == .original)
    }
}
