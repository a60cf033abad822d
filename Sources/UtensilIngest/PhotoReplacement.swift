import Foundation

/// The files of a photo replacement (`duplicate_names = "replace"`) between its write and its
/// move into place.
///
/// The new original and thumbnail are written as `.tmp-replace-<UUID>.<ext>` beside the
/// utensil's files and made durable; the row is committed; then the thumbnail and then the
/// original are renamed over their final names, and an old original of another extension is
/// removed. The names are deterministic so that start-up reconciliation can finish what a
/// `kill -9` interrupted: a temporary original whose hash is the row's was committed and rolls
/// forward; anything else (and a thumbnail whose original is already in place) rolls back.
enum PhotoReplacement {
    static let prefix = FileOps.temporaryPrefix + "replace-"

    /// `.tmp-replace-<UUID>.<ext>`
    static func temporaryName(id: UUID, fileExtension: String) -> [UInt8] {
        Array("\(prefix)\(id.uuidString).\(fileExtension)".utf8)
    }

    /// `.tmp-replace-<UUID>.<ext>` → the UUID and the extension.
    static func parse(_ name: [UInt8]) -> (id: UUID, fileExtension: String)? {
        let prefixBytes = Array(prefix.utf8)
        guard name.starts(with: prefixBytes) else { return nil }
        let rest = name.dropFirst(prefixBytes.count)
        guard let dot = rest.firstIndex(of: UInt8(ascii: ".")), let id = UUID(uuidString: rest[..<dot].lossyString) else {
            return nil
        }
        return (id, rest[rest.index(after: dot)...].lossyString)
    }

    /// Moves a committed replacement's temporaries into place: the thumbnail first, then the
    /// original (while the temporary original exists, reconciliation can still roll forward),
    /// then removes an old original of another extension, and makes the folders durable.
    static func moveIntoPlace(
        id: UUID, fileExtension: String, oldExtension: String, originals: HeldFolder, thumbnails: HeldFolder,
        faults: FaultInjection
    ) throws(SystemError) {
        let thumbnail = temporaryName(id: id, fileExtension: "jpeg")
        if (try? thumbnails.status(of: thumbnail)) != nil {
            try thumbnails.rename(thumbnail, to: thumbnails, as: Array("\(id.uuidString).jpeg".utf8))
            try thumbnails.sync()
        }
        faults.reached(.replaceThumbnailMoved)
        try originals.rename(
            temporaryName(id: id, fileExtension: fileExtension), to: originals,
            as: Array("\(id.uuidString).\(fileExtension)".utf8))
        faults.reached(.replaceOriginalMoved)
        if oldExtension != fileExtension {
            do {
                try originals.unlink(Array("\(id.uuidString).\(oldExtension)".utf8))
            } catch where error.isNotFound {}
        }
        try originals.sync()
    }
}
