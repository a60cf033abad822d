import Foundation
import Glibc
import Logging
import UtensilCatalogModel
import UtensilCore
import UtensilStorage

/// The storage's staged operations: the renditions of every store operation in flight, and
/// so the only place a crash can leave anything behind (see ``RenditionStorage``).
///
/// New renditions (an ingest, a replaced photo) are staged, made durable, the row is
/// committed, and only then are they published — the preview, then the thumbnail, then the
/// original. A delete takes the live renditions out into a staged operation first
/// (``RenditionStorage/unpublish(_:)``: the original first, then the thumbnail and the
/// preview), durably, commits the row's removal, and then discards them. So live renditions
/// are only ever those of committed rows, and at start-up only the staged operations need
/// looking at (not every rendition and every row): an operation whose staged original is its
/// row's photo (same extension, same SHA-256) was committed, or is a delete that was not, and
/// is published (again); anything else staged was not committed, or was deleted, and is
/// discarded. A staged thumbnail or preview without its original is one of these — the
/// original is published last and taken out first — or a `rethumb` interrupted between
/// removing an old rendition and publishing its new one, which is then published.
///
/// A new utensil in a bucket is the exception (``RenditionStorage/stageNew(_:of:originalExtension:)``):
/// its id is new, so its renditions are put straight under their live keys before its row's
/// commit, and no reader asks for them until then. A crash between the two leaves the
/// operation listed as ``StagedRenditions/isPlacedLive``: its row there, it is published (the
/// storage forgets it); no row, it is discarded, the live renditions with it. Its original
/// may go ahead of the rest, while the photo decodes (``NewOriginalUpload``).
///
/// In the local folder: `staging/<host_name>/<utensil id>.<operation id>.<rendition>.<ext>`
/// (``StagedName``; an operation id keeps a delete and a replacement of the same utensil apart).
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

    /// `<utensil>.<operation>.original.<ext>` or `<utensil>.<operation>.thumbnail.jpeg` → its
    /// parts (``StagedName``).
    static func parseStagedName(_ name: [UInt8]) -> (utensil: UUID, operation: UUID, role: String, fileExtension: String)? {
        guard let staged = StagedName(parsing: name) else { return nil }
        return (staged.utensil, staged.operation, staged.rendition.rawValue, staged.fileExtension)
    }

    /// The live renditions of `record`: its original, thumbnail, preview and grid square.
    static func renditionKeys(of record: UtensilRecord) -> [RenditionKey] {
        [Rendition.original, .thumbnail, .preview, .square].map { RenditionKey($0, of: record.id, originalExtension: record.fileExtension) }
    }

    /// Makes staged renditions live (the preview, the thumbnail, then the original). A publish
    /// never replaces a live rendition, so those of the utensil `replacing` (a new photo for
    /// it) are deleted first, the original first: a live original always has its other files,
    /// and a crash in between leaves the new ones staged, which the next start publishes. Not
    /// made durable: a publish lost to a power cut is made again at the next start.
    func publish(_ staged: StagedRenditions, replacing old: UtensilRecord?) throws(StorageError) {
        // Every rendition of the old photo goes, even one the new has none of (a grid square).
        let stale = old.map { old in
            Self.renditionKeys(of: old).filter { staged.renditions.contains($0.rendition) || !$0.rendition.isRequired }
        } ?? []
        try storageCall { storage async throws(StorageError) in
            for key in stale { try await storage.delete(key) }
            try await storage.publish(staged)
        }
    }

    /// Publishes `operation`, each live rendition in its way deleted just before its own is
    /// published (recovery, which does not know what is live: a replacement interrupted after
    /// its commit still has the old ones). A deletion that fails stops it there: what was
    /// published stays live, the rest staged.
    static func publishOver(_ operation: StagedRenditions, in storage: any RenditionStorage) async throws(StorageError) {
        var remaining = operation
        for _ in 0..<Rendition.allCases.count {
            do throws(StorageError) {
                return try await storage.publish(remaining)
            } catch .alreadyLive(let key) {
                try await storage.delete(key)
                let order = remaining.publishingOrder
                remaining = operation.keeping(Set(order[(order.firstIndex(of: key.rendition) ?? order.startIndex)...]))
            }
        }
        try await storage.publish(remaining)
    }

    /// Puts a new thumbnail and preview of utensil `id` in place of its old ones (`rethumb`):
    /// staged and made durable, then — while no delete of it runs, and only if its row is still
    /// there — each old one deleted (durably) and its new one published, the preview first. A
    /// crash leaves the old renditions or the new ones (each whole), or an old one deleted and
    /// its new one staged, which the next start publishes: so the publish itself need not be
    /// made durable.
    /// - Throws: ``RethumbError/gone(_:)`` when the row was deleted meanwhile (only a missing
    ///   row: a catalog that cannot answer is ``RethumbError/catalogUnavailable(_:_:)``, and
    ///   the old renditions stay), ``RethumbError/write(_:_:)`` when a storage operation failed.
    func replaceRenditions(of id: UUID, thumbnail: [UInt8], preview: [UInt8], square: [UInt8]? = nil) throws(RethumbError) {
        var renditions: [Rendition: [UInt8]] = [.thumbnail: thumbnail, .preview: preview]
        renditions[.square] = square
        let staged: StagedRenditions
        do throws(StorageError) {
            staged = try storageCall { [renditions] storage async throws(StorageError) in
                let staged = try await storage.stage(renditions, of: id, originalExtension: "jpeg")
                do throws(StorageError) {
                    try await storage.makeDurable([staged])
                } catch {
                    try? await storage.discard(staged)
                    throw error
                }
                return staged
            }
        } catch {
            throw .write(id, error)
        }
        defer { discard(staged) }  // Nothing left when it was published; the new renditions when they were not.
        faults.reached(.rethumbStaged)
        try whileChanging(id) { () throws(RethumbError) in
            let row: UtensilRecord?
            do {
                row = try CatalogAwait.run { [catalog] () async throws(CatalogError) in try await catalog.utensil(id: id) }
            } catch {
                throw .catalogUnavailable(id, "\(error)")
            }
            guard row != nil else { throw .gone(id) }  // Deleted meanwhile.
            do throws(StorageError) {
                try storageCall { storage async throws(StorageError) in try await Self.publishOver(staged, in: storage) }
            } catch {
                throw .write(id, error)
            }
            faults.reached(.rethumbMoved)
        }
    }

    /// A delete's first step (as `delete` takes it), from a test's thread: `record`'s live
    /// renditions taken out into a staged operation, durably (``RenditionStorage/unpublish(_:)``).
    /// When this throws, they are back in place.
    func unpublish(_ record: UtensilRecord) throws(StorageError) -> StagedRenditions {
        let keys = Self.renditionKeys(of: record)
        let staged = try storageCall { storage async throws(StorageError) in try await storage.unpublish(keys) }
        faults.reached(.deleteFilesStaged)
        return staged
    }

    /// A delete's first step alone, as a crash before its commit leaves it (recovery's tests
    /// look at the staged files by name); the folders are those it stages in.
    func stageOut(_ record: UtensilRecord, in folders: StateFolders) throws(StorageError) -> StagedFiles {
        let staged = try unpublish(record)
        return StagedFiles(utensil: staged.utensil, operation: staged.operation, fileExtension: staged.originalExtension)
    }

    /// Finishes or undoes what a crash left staged by this host (see above). Runs at start,
    /// when no operation can be in flight. Counts in `report` the operations rolled forward
    /// (published) and back (discarded).
    ///
    /// Only absence is absence: a staged original that cannot be read, a row the catalog cannot
    /// say is there or not (busy, failing), a rendition that cannot be published or removed —
    /// each stops that operation with a journal line (``MessageID/recoveryLeft``) and leaves it
    /// staged for the next start or a person; the other operations go on.
    func reconcileStaging(_ report: inout ReconcileReport) {
        let operations: [StagedRenditions]
        do throws(StorageError) {
            operations = try storageCall { storage async throws(StorageError) in
                try await storage.prepare()
                return try await storage.listStaged()
            }
        } catch {
            return recoveryLeft(.staging, "Cannot look at the staged files (\(error))", &report)
        }
        for operation in operations {
            let journal: KeyValuePairs<JournalField, Logger.MetadataValue> = [.utensilID: .string(operation.utensil.uuidString)]
            let recovery: Recovery
            do throws(RecoveryProblem) {
                recovery = try self.recovery(of: operation)
            } catch {
                recoveryLeft(.staging, "\(error.sentence) of utensil \(operation.utensil.uuidString)", &report, journal)
                continue
            }
            switch recovery {
            case .publish(let record, let renditions):
                do throws(StorageError) {
                    try rollForward(operation, publishing: renditions)
                } catch {
                    recoveryLeft(.staging, "Cannot put the files of utensil \(record.name) into place (\(error))", &report, journal)
                    continue
                }
                logger.notice(
                    "Put the files of utensil \(record.name) into place, whose change had been committed (or whose delete had not) before an interruption",
                    metadata: .journal([.utensilID: .string(record.id.uuidString)]))
                report.rolledForward += 1
            case .discard:
                do throws(StorageError) {
                    try storageCall { storage async throws(StorageError) in try await storage.discard(operation) }
                } catch {
                    recoveryLeft(
                        .staging, "Cannot remove the staged files of an interrupted operation (\(error))", &report, journal)
                    continue
                }
                report.rolledBack += 1
            }
        }
        do throws(StorageError) {
            try storageCall { storage async throws(StorageError) in try await storage.makeChangesDurable() }
        } catch {
            recoveryLeft(.staging, "Cannot make what was put into place durable (\(error))", &report)
        }
    }

    /// What recovery does with one staged operation.
    private enum Recovery {
        /// Publish these of its renditions (the others are discarded): the row is `record`.
        case publish(UtensilRecord, Set<Rendition>)
        case discard
    }

    /// Why an operation's staged renditions were left alone: what could not be read.
    struct RecoveryProblem: Error {
        let sentence: String
    }

    /// An operation whose staged original is its row's photo (same extension, same SHA-256)
    /// was committed (or is a delete that was not): all of it is published. One without an
    /// original whose row is there is a `rethumb` interrupted in its swap: what its row no
    /// longer has live is published. Anything else is discarded. Only absence counts as
    /// absence; an original that cannot be read or a catalog that cannot answer is thrown.
    private func recovery(of operation: StagedRenditions) throws(RecoveryProblem) -> Recovery {
        let original: [UInt8]?
        if operation.isPlacedLive {
            original = nil  // A new utensil's: its row there is all that tells it was committed.
        } else if operation.renditions.contains(.original) {
            do throws(StorageError) {
                original = try storageCall { storage async throws(StorageError) in try await storage.readStaged(.original, of: operation) }
            } catch .notStaged {
                return .discard
            } catch {
                throw RecoveryProblem(sentence: "Cannot read the staged original (\(error))")
            }
        } else {
            original = nil
        }
        let record: UtensilRecord?
        do {
            let id = operation.utensil
            record = try CatalogAwait.run { [catalog] () async throws(CatalogError) in try await catalog.utensil(id: id) }
        } catch {
            throw RecoveryProblem(sentence: "Cannot ask the catalog about the staged files (\(error))")
        }
        guard let record else { return .discard }
        if operation.isPlacedLive { return .publish(record, operation.renditions) }
        guard let original else {
            let missing: Set<Rendition>
            do throws(StorageError) {
                missing = try storageCall { storage async throws(StorageError) in
                    var missing = Set<Rendition>()
                    for rendition in operation.renditions {
                        do throws(StorageError) {
                            _ = try await storage.size(of: RenditionKey(rendition, of: record.id, originalExtension: record.fileExtension))
                        } catch .notFound {
                            missing.insert(rendition)
                        }
                    }
                    return missing
                }
            } catch {
                throw RecoveryProblem(sentence: "Cannot look at the live files (\(error))")
            }
            return missing.isEmpty ? .discard : .publish(record, missing)
        }
        guard record.fileExtension == operation.originalExtension, ContentHash.sha256(of: original) == record.sha256 else {
            return .discard
        }
        return .publish(record, operation.renditions)
    }

    /// Publishes `renditions` of a staged operation over what is live (see ``publishOver(_:in:)``)
    /// and discards the rest; a published original removes the utensil's originals of other
    /// types (a replacement by a photo of another type).
    private func rollForward(_ operation: StagedRenditions, publishing renditions: Set<Rendition>) throws(StorageError) {
        if operation.isPlacedLive {
            return try storageCall { storage async throws(StorageError) in try await storage.publish(operation) }
        }
        let publishing = StagedRenditions(
            utensil: operation.utensil, operation: operation.operation, originalExtension: operation.originalExtension,
            renditions: renditions)
        let others = renditions.contains(.original)
            ? PhotoFormats.byExtension.keys.filter { $0 != operation.originalExtension }
                .map { RenditionKey(.original, of: operation.utensil, originalExtension: $0) }
            : []
        try storageCall { storage async throws(StorageError) in
            try await Self.publishOver(publishing, in: storage)
            for key in others {
                do throws(StorageError) {
                    _ = try await storage.size(of: key)
                } catch .notFound {
                    continue
                }
                try await storage.delete(key)
            }
            try await storage.discard(operation)
        }
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
}

/// The names of an operation's staged files in the local folder (``StagedName``).
struct StagedFiles: Sendable {
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
}
