import Foundation
import Glibc
import UtensilCatalogModel
import UtensilCore

/// `staging/`: the files of every store operation in flight, and so the only place a crash
/// can leave anything behind.
///
/// New files (an ingest, a replaced photo) are written into `staging/`, made durable, the
/// row is committed, and only then are they renamed into `previews/`, `thumbnails/` and
/// `originals/` — the preview, then the thumbnail, then the original. A delete moves the
/// files out into `staging/` first — the original first, then the thumbnail and the
/// preview — makes that durable, commits the row's
/// removal, and then removes them. So `originals/` and `thumbnails/` only ever hold files of
/// committed rows, and at start-up only `staging/` needs looking at (not every file and
/// every row): an operation whose staged original is its row's photo (same extension, same
/// SHA-256) was committed, or is a delete that was not, and its files go (back) into place;
/// anything else staged was not committed, or was deleted, and goes. A staged thumbnail or
/// preview without its original is always one of these: the original moves last into place
/// and first out of it.
///
/// Names: `<utensil id>.<operation id>.original.<ext>`,
/// `<utensil id>.<operation id>.thumbnail.jpeg` and `<utensil id>.<operation id>.preview.jpeg`
/// (an operation id keeps a delete and a replacement of the same utensil apart).
extension UtensilStore {
    /// `originals/`, `thumbnails/`, `previews/` and `staging/`, held open for one operation.
    struct StateFolders: Sendable {
        let originals: HeldFolder
        let thumbnails: HeldFolder
        let previews: HeldFolder
        let staging: HeldFolder
    }

    func stateFolders() throws(SystemError) -> StateFolders {
        StateFolders(
            originals: try HeldFolder.open(settings.originals), thumbnails: try HeldFolder.open(settings.thumbnails),
            previews: try HeldFolder.open(settings.previews), staging: try HeldFolder.open(settings.staging))
    }

    static let stagedOriginal = "original"
    static let stagedThumbnail = "thumbnail"
    static let stagedPreview = "preview"

    /// `<utensil>.<operation>.original.<ext>` or `<utensil>.<operation>.thumbnail.jpeg` → its parts.
    static func parseStagedName(_ name: [UInt8]) -> (utensil: UUID, operation: UUID, role: String, fileExtension: String)? {
        let parts = name.split(separator: UInt8(ascii: "."), maxSplits: 3, omittingEmptySubsequences: false)
            .map { $0.lossyString }
        guard parts.count == 4, let utensil = UUID(uuidString: parts[0]), let operation = UUID(uuidString: parts[1]),
              [stagedOriginal, stagedThumbnail, stagedPreview].contains(parts[2]), !parts[3].isEmpty
        else { return nil }
        return (utensil, operation, parts[2], parts[3])
    }

    /// Runs `body` while no other operation of this process moves the files of utensil `id`
    /// (a delete and a replacement of the same utensil at once would otherwise leave the
    /// new photo without its row outside `staging/`). Fresh ingests need none: their ids are new.
    static func whileChanging<T, E: Error>(_ id: UUID, _ body: () throws(E) -> T) throws(E) -> T {
        let lock = changing[Int(id.uuid.15) % changing.count]
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// Striped by utensil id; shared by every store of the process (the engine's and the handler's).
    private static let changing = (0..<64).map { _ in NSLock() }

    /// Closed by a backup for the instant of its snapshot (see ``SnapshotGate``); shared, like
    /// the locks above, by every store of the process.
    static let snapshotGate = SnapshotGate()

    /// Moves staged files into place: the preview and the thumbnail (if staged), then the original, after
    /// removing the utensil's originals of `otherExtensions` (a replaced photo of another
    /// type). Not made durable: a move lost to a power cut is made again at the next start.
    func moveIntoPlace(_ files: StagedFiles, otherExtensions: [String]) throws(SystemError) {
        try files.folders.staging.renameIfPresent(
            files.preview, to: files.folders.previews, as: Self.previewName(id: files.utensil))
        try files.folders.staging.renameIfPresent(
            files.thumbnail, to: files.folders.thumbnails, as: Self.thumbnailName(id: files.utensil))
        faults.reached(.thumbnailMoved)
        for other in otherExtensions where other != files.fileExtension {
            try files.folders.originals.unlinkIfPresent(Self.originalName(id: files.utensil, fileExtension: other))
        }
        try files.folders.staging.rename(
            files.original, to: files.folders.originals,
            as: Self.originalName(id: files.utensil, fileExtension: files.fileExtension))
        faults.reached(.originalMoved)
    }

    /// Puts a new thumbnail and preview of utensil `id` in place of its old ones (`rethumb`):
    /// written and made durable in `staging/`, then — while no delete of it runs, and only if
    /// its row is still there — renamed over the old ones, and `previews/` and `thumbnails/`
    /// made durable. A crash leaves the old files or the new ones (each file whole); staged
    /// files without their original are removed at start.
    func replaceRenditions(of id: UUID, thumbnail: [UInt8], preview: [UInt8]) throws(SystemError) {
        let files = StagedFiles(folders: try stateFolders(), utensil: id, operation: UUID(), fileExtension: "jpeg")
        do throws(SystemError) {
            try FileOps.writeThroughTemporary(thumbnail, in: files.folders.staging, as: files.thumbnail, durable: true)
            try FileOps.writeThroughTemporary(preview, in: files.folders.staging, as: files.preview, durable: true)
            try files.folders.staging.sync()
            faults.reached(.rethumbStaged)
            try Self.whileChanging(id) { () throws(SystemError) in
                guard (try? CatalogAwait.run({ () async throws(CatalogError) in try await catalog.utensil(id: id) })) != nil else {
                    return  // Deleted meanwhile.
                }
                try files.folders.staging.rename(files.preview, to: files.folders.previews, as: Self.previewName(id: id))
                try files.folders.staging.rename(files.thumbnail, to: files.folders.thumbnails, as: Self.thumbnailName(id: id))
                try files.folders.previews.sync()
                try files.folders.thumbnails.sync()
                faults.reached(.rethumbMoved)
            }
        } catch {
            discard(files)
            throw error
        }
        discard(files)  // Nothing left when it was moved; the new thumbnail when the utensil went.
    }

    /// Moves a utensil's files out into `staging/` (the original first, then the thumbnail and
    /// the preview; one already missing is passed over) and makes that durable. What was moved goes back
    /// if the rest cannot be done.
    func stageOut(_ record: UtensilRecord, in folders: StateFolders) throws(SystemError) -> StagedFiles {
        let files = StagedFiles(folders: folders, utensil: record.id, operation: UUID(), fileExtension: record.fileExtension)
        do throws(SystemError) {
            for (folder, name, staged) in [
                (folders.originals, Self.originalName(id: record.id, fileExtension: record.fileExtension), files.original),
                (folders.thumbnails, Self.thumbnailName(id: record.id), files.thumbnail),
                (folders.previews, Self.previewName(id: record.id), files.preview),
            ] {
                try folder.renameIfPresent(name, to: folders.staging, as: staged)
            }
            try folders.staging.sync()
            try folders.originals.sync()
            try folders.thumbnails.sync()
            try folders.previews.sync()
        } catch {
            putBack(files, of: record)
            throw error
        }
        faults.reached(.deleteFilesStaged)
        return files
    }

    /// Puts files staged out by ``stageOut(_:in:)`` back, when the delete did not happen.
    func putBack(_ files: StagedFiles, of record: UtensilRecord) {
        for (staged, folder, name) in [
            (files.preview, files.folders.previews, Self.previewName(id: record.id)),
            (files.thumbnail, files.folders.thumbnails, Self.thumbnailName(id: record.id)),
            (files.original, files.folders.originals, Self.originalName(id: record.id, fileExtension: record.fileExtension)),
        ] {
            do {
                try files.folders.staging.renameIfPresent(staged, to: folder, as: name)
            } catch {
                logger.error(
                    "Cannot put \(error.path) of utensil \(record.name) back into place (\(error)); restarting utensild does it",
                    metadata: .journal([.utensilID: .string(record.id.uuidString)]))
            }
        }
    }

    /// Removes staged files (one already gone is fine); returns those that cannot be removed.
    func removeStaged(_ files: StagedFiles) -> [SystemError] {
        var problems: [SystemError] = []
        for name in [files.original, files.thumbnail, files.preview] {
            do {
                try files.folders.staging.unlinkIfPresent(name)
            } catch {
                problems.append(error)
            }
            faults.reached(.deleteFileRemoved)
        }
        return problems
    }

    /// Finishes or undoes what a crash left in `staging/` (see above). Runs at start, when no
    /// operation can be in flight.
    /// - Returns: how many operations were rolled forward (their files put into place) and
    ///   how many rolled back (their files removed).
    func reconcileStaging(_ folders: StateFolders) throws -> (forward: Int, back: Int) {
        var operations: [UUID: (utensil: UUID, original: String?, renditions: Bool)] = [:]
        for name in try folders.staging.list() {
            guard let (utensil, operation, role, fileExtension) = Self.parseStagedName(name) else {
                removeStray(name, in: folders.staging)
                continue
            }
            var entry = operations[operation] ?? (utensil, nil, false)
            if role == Self.stagedOriginal { entry.original = fileExtension } else { entry.renditions = true }
            operations[operation] = entry
        }
        var counts = (forward: 0, back: 0)
        for (operation, entry) in operations {
            let files = StagedFiles(
                folders: folders, utensil: entry.utensil, operation: operation, fileExtension: entry.original ?? "jpeg")
            // Only absence means "not committed": a staged original that cannot be read (an I/O
            // error, say) leaves the operation's files for the next start or a person.
            let stagedOriginal: [UInt8]?
            do throws(SystemError) {
                stagedOriginal = entry.original == nil ? nil : try FileOps.readRegularFile(files.original, in: folders.staging)
            } catch where error.isNotFound {
                stagedOriginal = nil
            } catch {
                logger.error(
                    "Cannot read the staged original of utensil \(entry.utensil.uuidString) (\(error)); its staged files are left for the next start",
                    metadata: .journal([.utensilID: .string(entry.utensil.uuidString)]))
                continue
            }
            if let fileExtension = entry.original,
               let record = try CatalogAwait.run({ () async throws(CatalogError) in try await catalog.utensil(id: entry.utensil) }),
               record.fileExtension == fileExtension,
               let bytes = stagedOriginal,
               ContentHash.sha256(of: bytes) == record.sha256
            {
                try withoutFaults.moveIntoPlace(files, otherExtensions: Array(PhotoFormats.byExtension.keys))
                logger.notice(
                    "Put the files of utensil \(record.name) into place, whose change had been committed (or whose delete had not) before an interruption",
                    metadata: .journal([.utensilID: .string(record.id.uuidString)]))
                counts.forward += 1
            } else {
                for name in [files.original, files.thumbnail, files.preview] {
                    do {
                        try folders.staging.unlinkIfPresent(name)
                    } catch {
                        logger.warning("Cannot \(error); it is tried again at the next start")
                    }
                }
                counts.back += 1
            }
        }
        try folders.staging.sync()
        try folders.originals.sync()
        try folders.thumbnails.sync()
        try folders.previews.sync()
        return counts
    }

    /// Removes what is in `staging/` under no name of an operation (a temporary of an
    /// interrupted write); a folder is logged and left.
    private func removeStray(_ name: [UInt8], in staging: HeldFolder) {
        do {
            try staging.unlink(name)
        } catch {
            logger.warning("\(staging.path.appending(name)) is not a file of utensild's that can be removed (\(error)); leaving it alone")
        }
    }
}

/// An operation's files in `staging/`, by name.
struct StagedFiles: Sendable {
    let folders: UtensilStore.StateFolders
    let utensil: UUID
    let operation: UUID
    /// The original's extension.
    let fileExtension: String

    var original: [UInt8] {
        Array("\(utensil.uuidString).\(operation.uuidString).\(UtensilStore.stagedOriginal).\(fileExtension)".utf8)
    }

    var thumbnail: [UInt8] {
        Array("\(utensil.uuidString).\(operation.uuidString).\(UtensilStore.stagedThumbnail).jpeg".utf8)
    }

    var preview: [UInt8] {
        Array("\(utensil.uuidString).\(operation.uuidString).\(UtensilStore.stagedPreview).jpeg".utf8)
    }

    /// Makes the three files durable (`staging/` itself is synced by the caller).
    func sync() throws(SystemError) {
        try FileOps.fsyncFile(original, in: folders.staging)
        try FileOps.fsyncFile(thumbnail, in: folders.staging)
        try FileOps.fsyncFile(preview, in: folders.staging)
    }
}
