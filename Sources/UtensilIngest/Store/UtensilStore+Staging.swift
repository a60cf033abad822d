import Foundation
import Glibc
import Logging
import UtensilCatalogModel
import UtensilCore
import UtensilStorage

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

    static let stagedOriginal = Rendition.original.rawValue

    /// `<utensil>.<operation>.original.<ext>` or `<utensil>.<operation>.thumbnail.jpeg` → its
    /// parts (``StagedName``).
    static func parseStagedName(_ name: [UInt8]) -> (utensil: UUID, operation: UUID, role: String, fileExtension: String)? {
        guard let staged = StagedName(parsing: name) else { return nil }
        return (staged.utensil, staged.operation, staged.rendition.rawValue, staged.fileExtension)
    }

    /// Makes staged renditions live (the preview, the thumbnail, then the original). A publish
    /// never replaces a live rendition, so those of the utensil `replacing` (a new photo for
    /// it) are deleted first, the original first: a live original always has its other files,
    /// and a crash in between leaves the new ones staged, which the next start publishes. Not
    /// made durable: a publish lost to a power cut is made again at the next start.
    func publish(_ staged: StagedRenditions, replacing old: UtensilRecord?) throws(StorageError) {
        let stale = old.map { old in
            staged.publishingOrder.reversed().map { RenditionKey($0, of: old.id, originalExtension: old.fileExtension) }
        } ?? []
        try storageCall { storage async throws(StorageError) in
            for key in stale { try await storage.delete(key) }
            try await storage.publish(staged)
        }
    }

    /// Moves staged files into place: the preview and the thumbnail (if staged), then the original, after
    /// removing the utensil's originals of `otherExtensions` (a replaced photo of another
    /// type). Not made durable: a move lost to a power cut is made again at the next start.
    func moveIntoPlace(_ files: StagedFiles, otherExtensions: [String], faults: FaultInjection? = nil) throws(SystemError) {
        let faults = faults ?? self.faults
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
    /// - Throws: ``RethumbError/gone(_:)`` when the row was deleted meanwhile (only a missing
    ///   row: a catalog that cannot answer is ``RethumbError/catalogUnavailable(_:_:)``, and
    ///   the old files stay), ``RethumbError/write(_:_:)`` when a file operation failed.
    func replaceRenditions(of id: UUID, thumbnail: [UInt8], preview: [UInt8]) throws(RethumbError) {
        let files: StagedFiles
        do throws(SystemError) {
            files = StagedFiles(folders: try stateFolders(), utensil: id, operation: UUID(), fileExtension: "jpeg")
        } catch {
            throw .write(id, error)
        }
        defer { discard(files) }  // Nothing left when it was moved; the new files when they were not.
        do throws(SystemError) {
            try FileOps.writeThroughTemporary(thumbnail, in: files.folders.staging, as: files.thumbnail, durable: true)
            try FileOps.writeThroughTemporary(preview, in: files.folders.staging, as: files.preview, durable: true)
            try files.folders.staging.sync()
        } catch {
            throw .write(id, error)
        }
        faults.reached(.rethumbStaged)
        try whileChanging(id) { () throws(RethumbError) in
            let row: UtensilRecord?
            do {
                row = try CatalogAwait.run { [catalog] () async throws(CatalogError) in try await catalog.utensil(id: id) }
            } catch {
                throw .catalogUnavailable(id, "\(error)")
            }
            guard row != nil else { throw .gone(id) }  // Deleted meanwhile.
            do throws(SystemError) {
                try files.folders.staging.rename(files.preview, to: files.folders.previews, as: Self.previewName(id: id))
                try files.folders.staging.rename(files.thumbnail, to: files.folders.thumbnails, as: Self.thumbnailName(id: id))
                try files.folders.previews.sync()
                try files.folders.thumbnails.sync()
            } catch {
                throw .write(id, error)
            }
            faults.reached(.rethumbMoved)
        }
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
    func removeStaged(_ files: StagedFiles, faults: FaultInjection? = nil) -> [SystemError] {
        let faults = faults ?? self.faults
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

    /// Finishes or undoes what a crash left in this host's `staging/<host_name>/` (see above).
    /// Runs at start, when no operation can be in flight. Counts in `report` the operations
    /// rolled forward (their files put into place) and back (their files removed).
    ///
    /// Only absence is absence: a staged original that cannot be read, a row the catalog cannot
    /// say is there or not (busy, failing), a file that cannot be moved or removed — each stops
    /// that operation with a journal line (``MessageID/recoveryLeft``) and leaves its files for
    /// the next start or a person; the other operations go on.
    func reconcileStaging(_ report: inout ReconcileReport) {
        let folders: StateFolders
        let names: [[UInt8]]
        do throws(SystemError) {
            folders = try stateFolders()
            names = try folders.staging.list()
        } catch {
            return recoveryLeft(.staging, "Cannot look into \(settings.staging) (\(error))", &report)
        }
        var operations: [UUID: (utensil: UUID, original: String?, renditions: Bool)] = [:]
        for name in names {
            guard let (utensil, operation, role, fileExtension) = Self.parseStagedName(name) else {
                removeStray(name, in: folders.staging)
                continue
            }
            var entry = operations[operation] ?? (utensil, nil, false)
            if role == Self.stagedOriginal { entry.original = fileExtension } else { entry.renditions = true }
            operations[operation] = entry
        }
        for (operation, entry) in operations {
            let files = StagedFiles(
                folders: folders, utensil: entry.utensil, operation: operation, fileExtension: entry.original ?? "jpeg")
            let journal: KeyValuePairs<JournalField, Logger.MetadataValue> = [.utensilID: .string(entry.utensil.uuidString)]
            let committed: UtensilRecord?
            do throws(RecoveryProblem) {
                committed = try committedRecord(of: files, original: entry.original)
            } catch {
                recoveryLeft(.staging, "\(error.sentence) of utensil \(entry.utensil.uuidString)", &report, journal)
                continue
            }
            if let record = committed {
                do throws(SystemError) {
                    try moveIntoPlace(files, otherExtensions: Array(PhotoFormats.byExtension.keys), faults: FaultInjection())
                } catch {
                    recoveryLeft(.staging, "Cannot put the files of utensil \(record.name) into place (\(error))", &report, journal)
                    continue
                }
                logger.notice(
                    "Put the files of utensil \(record.name) into place, whose change had been committed (or whose delete had not) before an interruption",
                    metadata: .journal([.utensilID: .string(record.id.uuidString)]))
                report.rolledForward += 1
            } else {
                let problems = removeStaged(files, faults: FaultInjection())
                guard problems.isEmpty else {
                    recoveryLeft(
                        .staging, "Cannot remove the staged files of an interrupted operation (\(problems.map(\.description).joined(separator: "; ")))",
                        &report, journal)
                    continue
                }
                report.rolledBack += 1
            }
        }
        for folder in [folders.staging, folders.originals, folders.thumbnails, folders.previews] {
            do throws(SystemError) {
                try faults.sync(folder)
            } catch {
                recoveryLeft(.staging, "Cannot make what was put into place durable (\(error))", &report)
            }
        }
    }

    /// Why an operation's files in `staging/` were left alone: what could not be read.
    struct RecoveryProblem: Error {
        let sentence: String
    }

    /// The row whose photo the operation's staged original is (same extension, same SHA-256):
    /// then the operation was committed (or is a delete that was not). Nil when there is no
    /// such row, no staged original, or another photo: the operation goes. Only absence
    /// counts as absence; an original that cannot be read or a catalog that cannot answer is
    /// thrown.
    private func committedRecord(of files: StagedFiles, original fileExtension: String?) throws(RecoveryProblem) -> UtensilRecord? {
        guard let fileExtension else { return nil }
        let bytes: [UInt8]
        do throws(SystemError) {
            guard let read = try FileOps.readRegularFile(files.original, in: files.folders.staging) else { return nil }
            bytes = read
        } catch where error.isNotFound {
            return nil
        } catch {
            throw RecoveryProblem(sentence: "Cannot read the staged original (\(error))")
        }
        let record: UtensilRecord?
        do {
            let id = files.utensil
            record = try CatalogAwait.run { [catalog] () async throws(CatalogError) in try await catalog.utensil(id: id) }
        } catch {
            throw RecoveryProblem(sentence: "Cannot ask the catalog about the staged files (\(error))")
        }
        guard let record, record.fileExtension == fileExtension, ContentHash.sha256(of: bytes) == record.sha256 else { return nil }
        return record
    }

    /// Files an older version staged directly in `staging/` (before each host had its own
    /// folder there) are this host's to recover: each is moved into `staging/<host_name>/`
    /// (one rename each, so a crash leaves every file in one of the two places) and recovered
    /// with the host's own. The folders of other hosts are left alone.
    func adoptOlderStaging(_ report: inout ReconcileReport) {
        let root: HeldFolder, own: HeldFolder
        let names: [[UInt8]]
        do throws(SystemError) {
            root = try HeldFolder.open(settings.stagingRoot)
            own = try HeldFolder.open(settings.staging)
            names = try root.list()
        } catch {
            return recoveryLeft(.olderStaging, "Cannot look into \(settings.stagingRoot) (\(error))", &report)
        }
        for name in names where Self.parseStagedName(name) != nil || name.starts(with: Array(FileOps.temporaryPrefix.utf8)) {
            do throws(SystemError) {
                guard try root.status(of: name).kind == .regular else { continue }
                try root.renameNoReplace(name, to: own, as: name)
                report.olderStagedAdopted += 1
            } catch where error.isNotFound {
                continue
            } catch {
                recoveryLeft(.olderStaging, "Cannot move \(root.path.appending(name)) into \(settings.staging) (\(error))", &report)
            }
        }
        guard report.olderStagedAdopted > 0 else { return }
        do throws(SystemError) {
            try faults.sync(own)
            try faults.sync(root)
        } catch {
            recoveryLeft(.olderStaging, "Cannot make the move into \(settings.staging) durable (\(error))", &report)
        }
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

    var original: [UInt8] { name(.original) }

    var thumbnail: [UInt8] { name(.thumbnail) }

    var preview: [UInt8] { name(.preview) }

    private func name(_ rendition: Rendition) -> [UInt8] {
        StagedName(
            utensil: utensil, operation: operation, rendition: rendition,
            fileExtension: rendition.fileExtension(original: fileExtension)
        ).bytes
    }

    /// Makes the three files durable (`staging/` itself is synced by the caller).
    func sync() throws(SystemError) {
        try FileOps.fsyncFile(original, in: folders.staging)
        try FileOps.fsyncFile(thumbnail, in: folders.staging)
        try FileOps.fsyncFile(preview, in: folders.staging)
    }
}
