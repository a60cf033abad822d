import Foundation

/// The files of a photo replacement (`duplicate_names = "replace"`) between their write and
/// their move into place.
///
/// The new original and thumbnail are written as `.tmp-replace-<UUID>.<ext>` beside the
/// utensil's files and made durable; the row is committed; then the thumbnail and then the
/// original are renamed over their final names, and an old original of another extension is
/// removed. The names are deterministic so that start-up reconciliation can finish what a
/// `kill -9` interrupted: a temporary original whose hash is the row's was committed and rolls
/// forward; anything else (and a thumbnail whose original is already in place) rolls back.
extension UtensilStore {
    static let replacementPrefix = FileOps.temporaryPrefix + "replace-"

    /// `.tmp-replace-<UUID>.<ext>`
    static func replacementName(id: UUID, fileExtension: String) -> [UInt8] {
        Array("\(replacementPrefix)\(id.uuidString).\(fileExtension)".utf8)
    }

    /// `.tmp-replace-<UUID>.<ext>` → the UUID and the extension.
    static func parseReplacementName(_ name: [UInt8]) -> (id: UUID, fileExtension: String)? {
        let prefixBytes = Array(replacementPrefix.utf8)
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
    func moveReplacementIntoPlace(
        id: UUID, fileExtension: String, oldExtension: String, originals: HeldFolder, thumbnails: HeldFolder
    ) throws(SystemError) {
        let thumbnail = Self.replacementName(id: id, fileExtension: "jpeg")
        if (try? thumbnails.status(of: thumbnail)) != nil {
            try thumbnails.rename(thumbnail, to: thumbnails, as: Self.thumbnailName(id: id))
            try thumbnails.sync()
        }
        faults.reached(.replaceThumbnailMoved)
        try originals.rename(
            Self.replacementName(id: id, fileExtension: fileExtension), to: originals,
            as: Self.originalName(id: id, fileExtension: fileExtension))
        faults.reached(.replaceOriginalMoved)
        if oldExtension != fileExtension {
            do {
                try originals.unlink(Self.originalName(id: id, fileExtension: oldExtension))
            } catch where error.isNotFound {}
        }
        try originals.sync()
    }

    /// Finishes the photo replacements that were committed before an interruption: a temporary
    /// original (`.tmp-replace-<UUID>.<ext>`) whose extension and hash are its row's moves into
    /// place with its thumbnail. Every other temporary is removed with the rest.
    func finishReplacements(originals: HeldFolder, thumbnails: HeldFolder) throws -> Int {
        var finished = 0
        for name in try originals.list() {
            guard let (id, fileExtension) = Self.parseReplacementName(name),
                  let record = try catalog.utensil(id: id), record.fileExtension == fileExtension,
                  let bytes = try? FileOps.readRegularFile(name, in: originals),
                  ContentHash.sha256(of: bytes) == record.sha256
            else { continue }
            try withoutFaults.moveReplacementIntoPlace(
                id: id, fileExtension: fileExtension, oldExtension: fileExtension, originals: originals,
                thumbnails: thumbnails)
            logger.notice(
                "Finished replacing the photo of \(record.name), which had been committed before an interruption",
                metadata: .journal([.utensilID: .string(id.uuidString)]))
            finished += 1
        }
        return finished
    }
}
