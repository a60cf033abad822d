import Crypto
import Foundation
import Glibc
import Logging
import Synchronization
import UtensilCatalogModel
import UtensilCodec
import UtensilCore
import UtensilStorage
import UtensilStore

/// Where a drop becomes a utensil — atomically — or a rejection a person understands.
///
/// `ingest(_:)` is synchronous and blocking (file I/O, decoding, a durable commit): callers run
/// it on threads of their own, never on the cooperative pool. It is safe to call for different
/// drops from several threads at once.
public final class IngestEngine: Sendable {
    /// The settings in force: the store's (a reload replaces them there).
    public var settings: IngestSettings { store.settings }
    /// Owns the state folder and the catalog: the engine reads, writes and commits through it.
    public let store: UtensilStore
    var logger: Logger { store.logger }
    var faults: FaultInjection { store.faults }
    let rejector: Rejector
    /// Shared by every ingest of the process.
    public let memory: MemoryBudget
    /// Drops are resolved beneath the inbox, held open for each drop.
    let inbox: FolderAnchor
    /// Utensils whose photo a prepared drop is replacing: their temporaries have fixed names,
    /// so a second drop of the same name waits for the first to be committed or dropped.
    let replacementsInFlight = Mutex<Set<UUID>>([])
    /// The fingerprints of prepared drops not yet committed (see ``FingerprintsInFlight``).
    package let fingerprintsInFlight = FingerprintsInFlight()
    /// How long a drop near a prepared one waits for its commit before it is left for a retry.
    let lookalikePatience: Duration
    /// The catalog's outages, said once when one starts and once when it ends.
    let catalogOutage = OutageLog(.catalog)
    /// The same for the storage (a bucket).
    let storageOutage = OutageLog(.storage)

    /// The engine of `store` (the process's one store; see ``StartUp``). A drop whose photo
    /// looks like one prepared and not yet committed waits up to `lookalikePatience` for that
    /// commit (``FingerprintsInFlight``), then is left for a retry.
    public init(store: UtensilStore, memory: MemoryBudget = .shared, lookalikePatience: Duration = .seconds(5)) {
        self.store = store
        self.memory = memory
        self.lookalikePatience = lookalikePatience
        self.rejector = Rejector(
            folder: FolderAnchor(store.settings.rejected), faults: store.faults, temporaryPrefix: store.settings.ownFiles.temporaryPrefix)
        self.inbox = FolderAnchor(store.settings.inbox)
    }

    /// Ingests one drop, top to bottom:
    /// find its folder beneath the inbox → open it safely → validate the name → check the size → read and hash → sniff the format →
    /// duplicate policy → decode and make the thumbnail → write both files → make them durable
    /// → commit the row → only then remove the drop, if it is still the same file.
    ///
    /// The same as ``prepare(_:)`` followed by ``commit(_:)`` of that one drop.
    public func ingest(_ drop: Drop) -> IngestOutcome {
        switch prepare(drop) {
        case .finished(let outcome): outcome
        case .readyToCommit(let prepared): commit([prepared])[0]
        }
    }

    /// Steps 1 to 8 of an ingest: everything but making the files durable, the commit and the
    /// drop's removal. Either the drop is finished with (rejected, gone, left for a retry), or its
    /// files are written under a new id and it waits for ``commit(_:)``.
    public func prepare(_ drop: Drop) -> IngestStep {
        let started = ContinuousClock.now
        let outcome: IngestOutcome
        if let location = locate(drop) {
            do {
                return try prepareOrThrow(drop, at: location, started: started)
            } catch let failure as Failure {
                outcome = settle(drop, at: location, failure)
            } catch {
                outcome = settle(drop, at: location, .transient(TransientFailure(.ioError, String(describing: error))))
            }
        } else {
            outcome = .vanished
        }
        log(outcome, drop: drop, duration: ContinuousClock.now - started)
        return .finished(outcome)
    }

    /// Steps 9 to 11 for any number of prepared drops at once: their files are made durable
    /// together (each file, then each folder once), their rows are committed in one transaction
    /// (one WAL commit), and only then is each drop removed from the inbox. A row that SQLite
    /// refuses (a duplicate that slipped past step 6 concurrently) refuses only its own drop.
    ///
    /// - Returns: one outcome per prepared drop, in the same order.
    public func commit(_ batch: [PreparedIngest]) -> [IngestOutcome] {
        let outcomes = commitOrFail(batch)
        for (prepared, outcome) in zip(batch, outcomes) {
            log(outcome, drop: prepared.drop, duration: ContinuousClock.now - prepared.started)
        }
        return outcomes
    }

    /// Why an ingest stopped before the end.
    enum Failure: Error {
        /// Moved to `rejected/`, if the drop is still the file that was `read` (or, when
        /// nothing was read, the file that was queued).
        case rejected(Rejection, bytes: Int, read: FileStatus? = nil)
        case transient(TransientFailure)
        case vanished
    }

    /// The drop's folder, resolved beneath the inbox without following any link; nil (and
    /// the refusal logged) when a folder on the way is a link now, or is gone.
    func locate(_ drop: Drop) -> DropLocation? {
        do {
            let (folder, name) = try inbox.folder().parent(of: drop.inboxPath)
            return DropLocation(folder: folder, name: name)
        } catch where error.code == ENOENT {
            return nil
        } catch {
            refuse(drop, "a folder on its way is no longer a folder inside the inbox (\(error))")
            return nil
        }
    }

    private func prepareOrThrow(_ drop: Drop, at location: DropLocation, started: ContinuousClock.Instant) throws -> IngestStep {
        // The settings of this drop, read once (a reload replaces them for the next one).
        let settings = settings
        let maker = ThumbnailMaker(request: settings.renditions)
        // 1. Open without following links or blocking, and look at what was really opened:
        //    it must be the file that was queued.
        let fd: Int32
        do {
            fd = try location.folder.openForReading(location.name)
        } catch {
            throw Self.openFailure(error, drop: drop)
        }
        defer { close(fd) }
        let status = try FileOps.fstat(fd, path: drop.path)
        guard status.identity == drop.status.identity else {
            refuse(drop, "it is no longer the file that was queued (another file took its name)")
            throw Failure.vanished
        }
        guard status.kind == .regular else {
            throw Failure.rejected(Self.notRegular(status.kind), bytes: 0)
        }
        let versionKey = settings.sharesStateFolder ? status.portableVersionKey : status.versionKey
        let sourceKey = Self.sourceKey(versionKey, at: drop.inboxPath)
        faults.reached(.opened)

        // 1b. What the catalog knows of the drop, in one call. Other hosts may watch this inbox
        //    too (a shared catalog): the drop is claimed before a byte of it is read, and a drop
        //    another host holds is left to that host.
        let known = try catalogCall({
            try store.lookUp(drop: sourceKey, fileIdentity: versionKey, claim: settings.sharesStateFolder)
        })
        guard known.claimed else {
            throw Failure.transient(TransientFailure(
                .takenByAnotherHost, "another host sharing the catalog is ingesting \(drop); it is looked at again later"))
        }

        // 2. A drop committed just before a crash (this file, at this inbox path) is
        //    recognised, and only removed now (if it changed meanwhile it stays, and the
        //    scheduler looks at it again). Another name for a file already ingested (a hard
        //    link) is a new drop: it goes on, under the duplicate rules. One look-up answers
        //    both for a new file (a committed drop is the same file too).
        if let sameFile = known.sameFile {
            let committed: UtensilRecord? = sameFile.sourceKey == sourceKey
                ? sameFile : try catalogCall({ try store.utensil(committedFrom: sourceKey) })
            if let committed {
                store.settleUncertainCommits()  // Its files may wait in staging/ for the catalog's word, or the storage.
                if store.awaitsItsFiles(committed.id) {
                    throw Failure.transient(TransientFailure(
                        .ioError, "\(committed.name) is committed but the storage has not taken its files yet; \(drop) waits for them"))
                }
                _ = try removeDrop(drop, at: location, expected: .unchanged(status))
                return .finished(.alreadyIngested(committed))
            }
            let existing = sameFile
            logger.notice(
                "\(drop) is another name (a hard link) for the file already ingested as \(existing.name); it is taken as a new drop, under the duplicate rules",
                metadata: .journal([.inboxFile: .string(drop.inboxPath.lossyString), .utensilID: .string(existing.id.uuidString)]))
        }

        // 3. The name, the extension, the size.
        let name: UtensilName
        do {
            name = try UtensilName(fileNameBytes: drop.fileName)
        } catch {
            throw Failure.rejected(Rejection(error), bytes: status.size, read: status)
        }
        let category = try Self.category(of: drop, size: status.size)
        guard let fileExtension = DropVisibility.fileExtension(of: drop.fileName),
              DropVisibility.photoExtensions.contains(fileExtension)
        else {
            throw Failure.rejected(Self.unsupportedExtension(drop.fileName), bytes: status.size, read: status)
        }
        guard status.size > 0 else {
            throw Failure.rejected(
                Rejection(.corruptImage, "The file is empty (0 bytes); copy the photo into the inbox again."),
                bytes: 0)
        }
        guard status.size <= settings.maxFileBytes else {
            throw Failure.rejected(
                Rejection(
                    .tooLarge,
                    "The file has \(status.size) bytes but at most \(settings.maxFileBytes) are allowed; export the photo at a smaller size."
                ), bytes: status.size, read: status)
        }

        // 4. Read and hash the bytes: what we store is exactly what we hashed and decoded. They,
        //    and what decoding them allocates (known from the header, read first), count against
        //    the memory budget shared by all workers until both files are written.
        let header = try FileOps.readPrefix(fd, count: min(status.size, PhotoFormats.headerBytes), path: drop.path)
        let headerCost = header.withUnsafeBytes { try? maker.decodeCost(of: $0) }
        var held = status.size + (headerCost ?? 0)
        try checkMemory(held, read: status)
        memory.acquire(held)
        defer { memory.release(held) }
        guard let bytes = try FileOps.readAll(fd, size: status.size, path: drop.path),
              DropExpectation.unchanged(status).isMet(by: try FileOps.fstat(fd, path: drop.path))
        else {
            throw Failure.transient(TransientFailure(.stillChanging, "\(drop) changed while it was read"))
        }
        if headerCost == nil, let cost = bytes.withUnsafeBytes({ try? maker.decodeCost(of: $0) }) {
            // A header beyond the part read first (or none the decoder knows: it will say so).
            try checkMemory(held + cost, read: status)
            memory.grow(holding: held, by: cost)
            held += cost
        }
        let sha256 = ContentHash.sha256(of: bytes)

        // 5. The format is read from the bytes, and must match the extension.
        let format = bytes.withUnsafeBytes { ThumbnailMaker.sniff($0) }
        try checkFormat(format, fileExtension: fileExtension, read: status)

        // 6. Duplicate policy (the catalog enforces it again at commit, through UNIQUE claims).
        //    With `duplicate_names = "replace"` a utensil of that name gets this photo instead.
        //    A catalog on a server is asked now and answers while the photo decodes (step 7),
        //    so that the worker's core does not idle for the round trip; a duplicate then costs
        //    a decode. One in the daemon's own process (SQLite) has answered already: a
        //    duplicate is rejected before it is decoded.
        let admission = store.beginAdmission(name: name, sha256: sha256)
        let quarantined = known.decoderCrashes >= 2
        // 6b. A new utensil's original (the largest rendition) goes to a bucket while the photo
        //     decodes, unless the catalog has said already that the drop is no new utensil; an
        //     upload the drop does not get to use is undone before its outcome is told.
        var upload = admission.mayBeNew && !quarantined ? store.beginNewOriginal(bytes, sha256: sha256, fileExtension: fileExtension) : nil
        defer { if let upload { store.abandon(upload) } }
        let decoded = admission.isAnswered || quarantined ? nil : decode(bytes, drop: drop, key: versionKey, maker: maker)
        let replacing: UtensilRecord?, claims: Claims
        switch try catalogCall({ try admission.result() }) {
        case .nameTaken(let existing):
            throw Failure.rejected(Self.duplicateName(existing.name), bytes: status.size, read: status)
        case .contentTaken(let existing):
            let rejection = existing.trashedAt == nil
                ? Self.duplicateContent(existing.name) : Self.duplicateContentInTrash(existing)
            throw Failure.rejected(rejection, bytes: status.size, read: status)
        case .new(let newClaims):
            (replacing, claims) = (nil, newClaims)
        case .replaces(let existing, let newClaims):
            (replacing, claims) = (existing, newClaims)
        }
        var heldReplacement: UUID?
        defer { if let heldReplacement { releaseReplacement(heldReplacement) } }
        if let replacing {
            guard replacementsInFlight.withLock({ $0.insert(replacing.id).inserted }) else {
                throw Failure.transient(TransientFailure(
                    .stillChanging, "another drop is replacing the photo of \(replacing.name) right now; \(drop) follows it"))
            }
            heldReplacement = replacing.id
        }

        // 7. Decode and make the thumbnail and the preview (unless done meanwhile, above); a
        //    drop that crashed the decoder twice is quarantined.
        if quarantined {
            throw Failure.rejected(
                Rejection(
                    .decoderCrash,
                    "Decoding this file crashed utensild twice, so it was set aside; open and re-export it with an image editor before dropping it again."
                ), bytes: status.size, read: status)
        }
        let thumbnail: Thumbnail
        switch decoded ?? decode(bytes, drop: drop, key: versionKey, maker: maker) {
        case .success(let made):
            thumbnail = made
        case .failure(let error):
            throw Failure.rejected(Self.rejection(for: error, fileExtension: fileExtension), bytes: status.size, read: status)
        }

        // 7b. Look-alikes (`near_duplicates`): the photo's fingerprint, from the decode's grey
        //     miniature, is looked up among the utensils (a replacement's own photo aside); a
        //     utensil found near is confirmed by a finer look at its preview against this one's.
        let fingerprint = PhotoFingerprint.of(thumbnail)
        let id = replacing?.id ?? upload?.utensil ?? UUID()
        var nearDuplicate: NearDuplicate?
        var heldFingerprint: UUID?
        defer { if let heldFingerprint { fingerprintsInFlight.release(heldFingerprint) } }
        if settings.nearDuplicates != .off, let fingerprint, fingerprint != PhotoFingerprint.nonePossible {
            guard fingerprintsInFlight.hold(fingerprint, of: id, waitingUpTo: lookalikePatience) else {
                throw Failure.transient(TransientFailure(
                    .stillChanging, "a photo that looks like \(drop) is being ingested right now; \(drop) follows it, to be compared with it"))
            }
            heldFingerprint = id
            do throws(NearDuplicateLookupError) {
                nearDuplicate = try store.nearDuplicate(of: fingerprint, excluding: replacing?.id, preview: thumbnail.preview?.jpeg)
            } catch {
                throw Failure.transient(TransientFailure(error))
            }
            if settings.nearDuplicates == .reject, let nearDuplicate {
                throw Failure.rejected(Self.nearDuplicate(nearDuplicate), bytes: status.size, read: status)
            }
        }

        // 8. Write the original, the thumbnail and the preview under a new id (a replacement: under temporary
        //    names beside the utensil's files); ``commit(_:)`` makes them durable.
        let record = UtensilRecord(
            id: id, name: name.value, nameKey: name.uniquenessKey, searchKey: name.searchKey,
            fileExtension: fileExtension, createdAt: replacing?.createdAt ?? Date(), width: thumbnail.width,
            height: thumbnail.height, bytes: status.size, sha256: sha256, sourceKey: sourceKey,
            nameClaim: nil, contentClaim: nil,  // Set by the store, from the admission's claims.
            category: category?.value, addedBy: UserName.addedBy(fd: fd, owner: status.owner), host: settings.hostName,
            fingerprint: fingerprint, nearDuplicate: nearDuplicate)
        let pending: PendingUtensil
        let begun = upload
        upload = nil  // Taken in by the write, whatever becomes of it.
        do throws(StorageError) {
            pending = try store.write(
                original: bytes, thumbnail: thumbnail.jpeg, preview: thumbnail.renderedPreview.jpeg, square: thumbnail.square,
                of: record, replacing: replacing, claims: claims, begun: begun)
        } catch {
            throw Failure.transient(TransientFailure(error))
        }
        heldReplacement = nil  // Released by ``commit(_:)``, as is the fingerprint.
        heldFingerprint = nil
        return .readyToCommit(PreparedIngest(
            drop: drop, location: location, read: status, pending: pending, started: started))
    }

    /// Step 7's decode: the thumbnail and the preview made from `bytes`, under the decoder
    /// crash guard (a crash is counted against `key` before the process dies).
    private func decode(_ bytes: [UInt8], drop: Drop, key: String, maker: ThumbnailMaker) -> Result<Thumbnail, ImageCodecError> {
        DecoderCrashGuard.decoding(key: key) {
            faults.decoding(drop.fileName.lossyString)
            return bytes.withUnsafeBytes { raw in
                Result { () throws(ImageCodecError) in try maker.makeThumbnail(from: raw) }
            }
        }
    }

    private func commitOrFail(_ batch: [PreparedIngest]) -> [IngestOutcome] {
        guard !batch.isEmpty else { return [] }
        defer {
            for case let replaced? in batch.map(\.replacing) { releaseReplacement(replaced.id) }
            for prepared in batch { fingerprintsInFlight.release(prepared.record.id) }
        }

        // 9 and 10. Make the files durable, commit the rows (see ``UtensilStore/commit(_:)``).
        let results = store.commit(batch.map(\.pending))

        // 11. Only now does each drop leave the inbox, and only if it is still exactly the file
        //     we read: one rewritten in place meanwhile stays, to be ingested again as what it is now.
        return zip(batch, results).map { prepared, result in
            let record: UtensilRecord
            switch result {
            case .committed(let committed): record = committed
            case .refused(let refusal): return refused(prepared, refusal)
            case .failed(let failure): return .retryLater(failure)
            }
            do throws(SystemError) {
                guard try removeDrop(prepared.drop, at: prepared.location, expected: .unchanged(prepared.read)) else {
                    return .ingested(record)  // The scheduler looks at the drop again.
                }
            } catch {
                return .retryLater(TransientFailure(error))
            }
            faults.reached(.dropRemoved)
            return .ingested(record)
        }
    }

    private func releaseReplacement(_ id: UUID) {
        _ = replacementsInFlight.withLock { $0.remove(id) }
    }

    /// A row SQLite refused (or a replacement whose utensil left meanwhile; its files are
    /// gone): the drop is settled. In replace mode a name claimed meanwhile by another drop,
    /// or a utensil deleted meanwhile, is looked at again (it then replaces, or is new).
    private func refused(_ prepared: PreparedIngest, _ refusal: CatalogError) -> IngestOutcome {
        switch refusal {
        case .duplicateName where settings.replaceDuplicateNames, .notFound where prepared.replacing != nil:
            return .retryLater(TransientFailure(
                .stillChanging, "\(prepared.drop)'s utensil of that name changed while it was ingested; it is looked at again"))
        default:
            return settle(prepared.drop, at: prepared.location, Self.commitFailure(refusal, read: prepared.read))
        }
    }

    // MARK: Steps

    private func checkFormat(_ format: SniffedFormat, fileExtension: String, read: FileStatus) throws {
        let expected = PhotoFormats.byExtension[fileExtension] ?? []
        if expected.contains(format) { return }
        if let usual = PhotoFormats.usualExtension(of: format) {
            throw Failure.rejected(
                Rejection(
                    .extensionMismatch,
                    "The file is a \(format.displayName) image but is named .\(fileExtension); rename it to end in .\(usual)."
                ), bytes: read.size, read: read)
        }
        if format == .unknown {
            let names = expected.map(\.displayName).sorted().joined(separator: " or ")
            throw Failure.rejected(
                Rejection(
                    .corruptImage,
                    "The file is not a readable \(names) image; export the photo again and drop the new file."
                ), bytes: read.size, read: read)
        }
        throw Failure.rejected(
            Rejection(
                .unsupportedType,
                "The file is a \(format.displayName) image, which utensild does not take; convert it to JPEG, PNG, HEIC or WebP and drop it again."
            ), bytes: read.size, read: read)
    }

    /// A drop that needs more memory than the whole budget is refused before it is decoded.
    private func checkMemory(_ needed: Int, read: FileStatus) throws {
        guard needed > memory.bytes else { return }
        throw Failure.rejected(
            Rejection(
                .tooManyPixels,
                "Reading and decoding this image takes \(needed >> 20) MiB of memory, more than the whole memory_budget of \(memory.bytes >> 20) MiB; scale it down, or save it as a non-interlaced PNG or a baseline JPEG, and drop it again."
            ), bytes: read.size, read: read)
    }

    /// Removes the drop from the inbox (relative to its held folder) if it is still exactly
    /// what `expected` says; returns whether it was removed. A drop already gone counts as
    /// removed; one that changed is left, and that is logged.
    private func removeDrop(_ drop: Drop, at location: DropLocation, expected: DropExpectation) throws(SystemError) -> Bool {
        let now: FileStatus
        do {
            now = try location.status()
        } catch where error.isNotFound {
            return true
        }
        guard expected.isMet(by: now) else {
            refuse(drop, "it changed after it was read (rewritten or replaced), so it stays in the inbox and is looked at again")
            return false
        }
        do {
            try location.folder.unlink(location.name)
        } catch where error.isNotFound {
            return true
        }
        return true
    }

    /// The row's source key: the file's version key (``FileStatus/versionKey``, or its
    /// portable form when the state folder is shared) and a digest of its inbox path (see
    /// `UtensilRecord.sourceKey`).
    static func sourceKey(_ versionKey: String, at inboxPath: [UInt8]) -> String {
        let digest = SHA256.hash(data: inboxPath).prefix(16).map { String(format: "%02x", $0) }.joined()
        return "\(versionKey)@\(digest)"
    }

    // MARK: Failures

    /// Turns a failure into the outcome: a rejection moves the drop, a transient failure leaves it.
    func settle(_ drop: Drop, at location: DropLocation, _ failure: Failure) -> IngestOutcome {
        switch failure {
        case .vanished:
            return .vanished
        case .transient(let transient):
            return .retryLater(transient)
        case .rejected(let rejection, let bytes, let read):
            let expected = read.map(DropExpectation.unchanged) ?? .sameFile(drop.status.identity)
            do {
                switch try rejector.reject(drop, at: location, expected: expected, rejection, bytes: bytes) {
                case .rejected(let name):
                    return .rejected(rejection, rejectedAs: name.lossyString)
                case .changed:
                    refuse(drop, "it changed after it was looked at, so it was not rejected and is looked at again")
                    return .retryLater(TransientFailure(.stillChanging, "\(drop) changed while it was looked at"))
                }
            } catch where error.isNotFound && (try? location.status()) == nil {
                return .vanished
            } catch {
                return .retryLater(TransientFailure(error))
            }
        }
    }

    /// Logs why the daemon left a drop alone.
    func refuse(_ drop: Drop, _ why: String) {
        logger.warning(
            "Left \(drop) alone: \(why)",
            metadata: .journal([.inboxFile: .string(drop.inboxPath.lossyString), .messageID: .id(.leftAlone)]))
    }

    /// Runs a catalog read; a catalog that cannot answer is a transient failure.
    private func catalogCall<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as CatalogError {
            throw Failure.transient(TransientFailure(error))
        }
    }

    static func openFailure(_ error: SystemError, drop: Drop) -> Failure {
        switch error.code {
        case ELOOP:
            return .rejected(notRegular(.symlink), bytes: 0)
        case ENOENT, ENOTDIR:
            return .vanished
        case EACCES, EPERM:
            return .rejected(
                Rejection(
                    .unreadable,
                    "utensild is not allowed to read this file; give the utensil group read permission (chmod g+r) and drop it again."
                ), bytes: drop.status.size)
        case ENXIO, EISDIR:
            return .rejected(notRegular(drop.status.kind), bytes: 0)
        default:
            return .transient(TransientFailure(error))
        }
    }

    static func commitFailure(_ error: CatalogError, read: FileStatus) -> Failure {
        switch error {
        case .duplicateName(let existing): .rejected(duplicateName(existing), bytes: read.size, read: read)
        case .duplicateContent(let existing): .rejected(duplicateContent(existing), bytes: read.size, read: read)
        case .alreadyIngested: .vanished
        case .notFound, .invalidCursor, .ambiguousName, .unavailable, .notEmpty: .transient(TransientFailure(error))
        }
    }

    /// The category of a drop: the first folder below the inbox (`Knives` for
    /// `Knives/Chef/Santoku.jpg`), validated like a name; nil for a drop directly in the inbox.
    static func category(of drop: Drop, size: Int) throws -> UtensilName? {
        let components = drop.inboxPath.split(separator: UInt8(ascii: "/"))
        guard components.count > 1, let folder = components.first else { return nil }
        do {
            return try UtensilName(folderNameBytes: folder)
        } catch {
            throw Failure.rejected(invalidCategory(folder: Array(folder), error), bytes: size)
        }
    }

    static func invalidCategory(folder: [UInt8], _ error: NameError) -> Rejection {
        Rejection(
            .invalidCategory,
            "The folder \(folder.lossyString) in the inbox cannot be a category because its name \(error.problem); rename the folder, then move this photo from the rejected folder into it.")
    }

    static func notRegular(_ kind: FileStatus.Kind) -> Rejection {
        let what: String = switch kind {
        case .directory: "a folder"
        case .symlink: "a symbolic link"
        case .fifo: "a named pipe"
        case .socket: "a socket"
        case .characterDevice, .blockDevice: "a device"
        case .regular, .unknown: "not a regular file"
        }
        return Rejection(
            .notARegularFile,
            "This is \(what), not a photo file; copy the photo itself into the inbox.")
    }

    static func unsupportedExtension(_ fileName: [UInt8]) -> Rejection {
        let shown = DropVisibility.fileExtension(of: fileName).map { "a .\($0) file" } ?? "a file without an extension"
        return Rejection(
            .unsupportedType,
            "This is \(shown), but utensild takes only \(PhotoFormats.listed) photos; convert it to JPEG and drop it again.")
    }

    static func duplicateName(_ existing: String) -> Rejection {
        Rejection(
            .duplicateName,
            "A utensil named \(existing) already exists; rename the file to a name not yet used, or delete the old utensil first.")
    }

    static func duplicateContentInTrash(_ existing: UtensilRecord) -> Rejection {
        Rejection(
            .duplicateContent,
            "This exact photo is the utensil \(existing.name), which is in the trash; bring it back with `utensilctl restore \(existing.id.uuidString)`, or delete it for good with `utensilctl delete --now \(existing.id.uuidString)` and drop this file again.")
    }

    static func duplicateContent(_ existing: String) -> Rejection {
        Rejection(
            .duplicateContent,
            "This exact photo is already the utensil \(existing); there is nothing to add, so delete this copy.")
    }

    static func nearDuplicate(_ existing: NearDuplicate) -> Rejection {
        Rejection(
            .nearDuplicate,
            "This photo looks like a copy of the utensil \(existing.name) (\(existing.id.uuidString)): the same picture re-saved, resized or converted, so delete this file. If it is another photo after all, dropping it again turns it away again: ask whoever runs utensild to let it in.")
    }

    static func rejection(for error: ImageCodecError, fileExtension: String) -> Rejection {
        switch error {
        case .unrecognizedFormat:
            Rejection(.corruptImage, "The file is not a readable image; export the photo again and drop the new file.")
        case .unsupported(let format, let detail):
            Rejection(.unsupportedType, "This \(format) image cannot be read (\(detail)); convert it to an ordinary JPEG and drop it again.")
        case .tooManyPixels(let width, let height, let limit):
            Rejection(.tooManyPixels, "The image is \(width)×\(height) pixels but at most \(limit) pixels are allowed; scale it down and drop it again.")
        case .corrupt(let detail):
            Rejection(.corruptImage, "The image data is damaged or incomplete (\(detail)); copy the photo again from its source.")
        case .tooMuchMetadata(let chunkLimit, let totalLimit):
            Rejection(
                .corruptImage,
                "The image carries more metadata than utensild reads (over \(chunkLimit >> 20) MiB of text or colour profile in one chunk, or \(totalLimit >> 20) MiB in all); save it again without metadata and drop the new file.")
        }
    }
}

extension IngestEngine {
    /// Rejects a drop for a reason found outside the pipeline (for example `never-settled`).
    public func reject(_ drop: Drop, _ rejection: Rejection) -> IngestOutcome {
        let outcome = locate(drop).map { settle(drop, at: $0, .rejected(rejection, bytes: drop.status.size)) } ?? .vanished
        log(outcome, drop: drop, duration: .zero)
        return outcome
    }
}

/// What ``IngestEngine/prepare(_:)`` left: a finished drop, or one waiting for its commit.
public enum IngestStep: Sendable {
    case finished(IngestOutcome)
    case readyToCommit(PreparedIngest)
}

/// A drop read, checked, decoded and written under its new id (files not yet durable, no
/// row yet), waiting for ``IngestEngine/commit(_:)``. If it is never committed (the process
/// dies), start-up reconciliation removes its files and the drop is ingested again.
public struct PreparedIngest: Sendable {
    public let drop: Drop
    let location: DropLocation
    /// The drop as it was read: it is removed only if it is still exactly this.
    let read: FileStatus
    /// Its files written, its row ready.
    let pending: PendingUtensil
    let started: ContinuousClock.Instant

    var record: UtensilRecord { pending.record }
    /// The utensil whose photo this drop replaces (`duplicate_names = "replace"`), as it was.
    var replacing: UtensilRecord? { pending.replacing }
}
