import Foundation
import UtensilCatalogModel
import UtensilCore
import UtensilStorage

/// The commit of an ingest, a new utensil or a new photo for one (`duplicate_names =
/// "replace"`): its renditions staged in the storage, made durable, its row committed, then
/// published (see ``RenditionStorage`` and `UtensilStore+Staging`). A new utensil's go, in a
/// bucket, straight under their live keys, which no row has yet
/// (``RenditionStorage/stageNew(_:of:originalExtension:)``): nothing is left to publish.
extension UtensilStore {
    /// Stages a utensil's original, thumbnail, preview and grid square (when made) for
    /// `record` in the storage (not yet durable: see ``commit(_:)``); `replacing` is the utensil whose photo they replace
    /// (nil: `record`'s id was made for this drop, and no row or rendition has it),
    /// `claims` the row's claim columns (from ``admission(name:sha256:)``), `begun` the upload
    /// of a new utensil's original begun ahead (``beginNewOriginal(_:sha256:fileExtension:)``), whose
    /// id `record` then has: it is taken in here, used or, for a replacement, abandoned.
    /// Nothing is left behind when this throws.
    package func write(
        original: [UInt8], thumbnail: [UInt8], preview: [UInt8], square: [UInt8]? = nil, of record: UtensilRecord,
        replacing: UtensilRecord?, claims: Claims, begun upload: NewOriginalUpload? = nil
    ) throws(StorageError) -> PendingUtensil
    {
        let record = claims.applied(to: record)
        var renditions: [Rendition: [UInt8]] = [.original: original, .thumbnail: thumbnail, .preview: preview]
        renditions[.square] = square
        let begun = upload.flatMap { replacing == nil && $0.utensil == record.id ? $0 : nil }
        if let upload, begun == nil { abandon(upload) }
        // A new utensil's id is new: a bucket puts its renditions straight under their live keys.
        let staged = replacing == nil
            ? try stageNew(renditions, of: record, begun: begun)
            : try storageCall { [renditions] storage async throws(StorageError) in
                try await storage.stage(renditions, of: record.id, originalExtension: record.fileExtension)
            }
        return PendingUtensil(record: record, replacing: replacing, staged: staged)
    }

    /// What became of one pending utensil at its commit.
    package enum CommitResult: Sendable {
        case committed(UtensilRecord)
        /// SQLite refused the row (or the whole transaction failed); its files are removed.
        case refused(CatalogError)
        /// Its files could not be made durable (they are removed), or a committed utensil's
        /// files could not be moved into place (start-up reconciliation finishes it).
        case failed(TransientFailure)
    }

    /// Commits any number of pending utensils at once: their renditions are made durable
    /// together (``RenditionStorage/makeDurable(_:)``), the new rows are committed in one transaction (one
    /// WAL commit), each replacement on its own, and then each one's files are moved into
    /// place. A row that SQLite refuses refuses only its own utensil.
    ///
    /// - Returns: one result per pending utensil, in the same order.
    package func commit(_ batch: [PendingUtensil]) -> [CommitResult] {
        settleUncertainCommits()
        // Make the renditions durable, the whole group together.
        do throws(StorageError) {
            let operations = batch.map(\.staged)
            try storageCall { storage async throws(StorageError) in try await storage.makeDurable(operations) }
            faults.reached(.filesDurable)
        } catch {
            batch.forEach { discard($0.staged) }
            return batch.map { _ in .failed(TransientFailure(error)) }
        }

        return snapshotGate.passing { commitRows(batch) }
    }

    /// Commits the rows of a batch whose files are durable in `staging/`, then moves each one's
    /// files into place; a backup's snapshot falls before or after all of it.
    private func commitRows(_ batch: [PendingUtensil]) -> [CommitResult] {
        // Commit the new rows in one transaction. If it fails, none of the files is left behind.
        var results = batch.map { CommitResult.committed($0.record) }
        let fresh = batch.indices.filter { batch[$0].replacing == nil }
        if !fresh.isEmpty {
            do {
                let records = fresh.map { batch[$0].record }
                let refusals = try CatalogAwait.run { [catalog] () async throws(CatalogError) in try await catalog.insert(batch: records) }
                changes.announce()
                try faults.committed(records.map(\.name))
                for (index, refusal) in zip(fresh, refusals)
                where refusal != nil {
                    results[index] = .refused(refusal!)
                }
                heldFingerprints.committed(zip(records, refusals).filter { $0.1 == nil }.map(\.0))
            } catch {
                return settleUncertainCommit(of: batch, fresh: Set(fresh), error)
            }
            faults.reached(.committed)
        }
        for index in batch.indices {
            let pending = batch[index]
            if pending.replacing != nil {
                results[index] = whileChanging(pending.record.id) { commitReplacement(pending) }
            } else if case .refused = results[index] {
                discard(pending.staged)
            } else {
                results[index] = placeFiles(of: pending, committed: results[index])
            }
        }
        return results
    }

    /// After the commit of the new rows failed. A refusal or a local database's error means
    /// nothing was committed, but "unavailable" may be a reply lost after the commit happened
    /// (a PostgreSQL connection cut under it): each row is then looked up, and only a row known
    /// to be absent loses its files. A row found is finished as if the reply had come; one that
    /// cannot be looked up keeps its files in `staging/` (a new utensil's in a bucket under their
    /// live keys, with its marker there), where the next start finishes or undoes it, and its
    /// drop is retried; ``settleUncertainCommits()`` looks again before the next commit and
    /// before that drop is taken as already ingested. `fresh` are the indices of the rows whose
    /// commit was tried (a replacement's row counts as committed once it has the new photo);
    /// the files of the others go.
    private func settleUncertainCommit(of batch: [PendingUtensil], fresh: Set<Int>, _ error: CatalogError) -> [CommitResult] {
        batch.indices.map { index in
            let pending = batch[index]
            guard fresh.contains(index), case .unavailable = error else {
                discard(pending.staged)
                return .refused(error)
            }
            switch settle(pending, after: error) {
            case .committed(let row): return placeFiles(of: pending, committed: .committed(row))
            case .absent: return .refused(error)
            case .unknown(let lookupError):
                uncertainCommits.withLock { $0.append(pending) }
                logger.warning(
                    "Whether \(pending.record.name) was committed is not known (\(error); then \(lookupError)); its files wait until the catalog answers, and its drop is retried",
                    metadata: .journal([.utensilID: .string(pending.record.id.uuidString)]))
                return .failed(TransientFailure(lookupError))
            }
        }
    }

    /// Looks again at each commit whose outcome was not known: a row found gets its files put in
    /// place, a row absent loses them, one still unknown waits for the next look (or the next
    /// start, which finishes or undoes what `staging/` holds).
    package func settleUncertainCommits() {
        placeUnplacedFiles()
        let uncertain = uncertainCommits.withLock { commits in
            defer { commits = [] }
            return commits
        }
        guard !uncertain.isEmpty else { return }
        snapshotGate.passing {
            for pending in uncertain {
                switch settle(pending, after: nil) {
                case .committed(let row): _ = placeFiles(of: pending, committed: .committed(row))
                case .absent: break
                case .unknown: uncertainCommits.withLock { $0.append(pending) }
                }
            }
        }
    }

    /// Whether an uncertain commit happened.
    private enum Settled {
        case committed(UtensilRecord)
        case absent
        case unknown(CatalogError)
    }

    /// Looks `pending`'s row up: there with its photo (committed), or not (its files are discarded).
    private func settle(_ pending: PendingUtensil, after error: CatalogError?) -> Settled {
        let id = pending.record.id
        let lookup = Result { () throws(CatalogError) in
            if error != nil { try faults.lookingUpAfterLostReply() }
            return try CatalogAwait.run { [catalog] () async throws(CatalogError) in try await catalog.utensil(id: id) }
        }
        switch lookup {
        case .success(let row?) where row.sourceKey == pending.record.sourceKey && row.sha256 == pending.record.sha256:
            logger.notice(
                "\(pending.record.name) was committed although the catalog's reply was lost\(error.map { " (\($0))" } ?? ""); its files are put in place",
                metadata: .journal([.utensilID: .string(id.uuidString)]))
            changes.announce()
            return .committed(row)
        case .success:
            discard(pending.staged)
            return .absent
        case .failure(let lookupError):
            return .unknown(lookupError)
        }
    }

    /// Removes the staged renditions of a utensil that will not be committed. What cannot be
    /// removed is logged; start-up reconciliation removes it.
    func discard(_ staged: StagedRenditions) {
        do throws(StorageError) {
            try storageCall { storage async throws(StorageError) in try await storage.discard(staged) }
        } catch {
            logger.warning(
                "Cannot remove the staged files of utensil \(staged.utensil.uuidString) (\(error)); it has no row, so restarting utensild removes them",
                metadata: .journal([.utensilID: .string(staged.utensil.uuidString)]))
        }
    }

    /// Commits a replacement's row (its renditions are durable, staged), then publishes them;
    /// or, refused, discards them.
    private func commitReplacement(_ pending: PendingUtensil) -> CommitResult {
        do {
            let photo = pending.record
            let record = try CatalogAwait.run { [catalog] () async throws(CatalogError) in try await catalog.replacePhoto(with: photo) }
            heldFingerprints.committed([record])
            faults.reached(.committed)
            try faults.committed([photo.name])
            return placeFiles(of: pending, committed: .committed(record))
        } catch {
            return settleUncertainCommit(of: [pending], fresh: [0], error)[0]
        }
    }

    /// After the commit: the renditions published (a replaced utensil's old ones deleted
    /// first). A failure (the storage stopped answering between the commit and the publish)
    /// leaves the utensil in ``unplacedCommits``, published again before the next commit and
    /// by its drop's retry (``placeUnplacedFiles()``), or else by the next start's recovery.
    private func placeFiles(of pending: PendingUtensil, committed: CommitResult) -> CommitResult {
        do throws(StorageError) {
            try faults.publishing(pending.record.name)
            try publish(pending.staged, replacing: pending.replacing)
            return committed
        } catch {
            unplacedCommits.withLock { $0.append(pending) }
            logger.error(
                "\(pending.record.name) was committed but its files could not be moved into place (\(error)); its drop waits in the inbox, and the move is tried again with it",
                metadata: .journal([.utensilID: .string(pending.record.id.uuidString)]))
            return .failed(TransientFailure(error))
        }
    }
}

/// A utensil whose renditions are staged (not yet durable) and whose row is not yet
/// committed: waiting for ``UtensilStore/commit(_:)``. If it is never committed (the process
/// dies), start-up reconciliation discards them.
package struct PendingUtensil: Sendable {
    package let record: UtensilRecord
    /// The utensil whose photo this replaces (`duplicate_names = "replace"`), as it was.
    package let replacing: UtensilRecord?
    package let staged: StagedRenditions
}

extension TransientFailure {
    /// A storage operation that failed: a full disk as such, a bucket that does not answer (or
    /// fails for now) as the storage unavailable, anything else as an I/O error.
    package init(_ error: StorageError) {
        if case .objectStorage(let failure) = error, failure.kind == .unreachable || failure.isTransient {
            self.init(.storageUnavailable, error.description)
        } else {
            self.init(error.isNoSpace ? .diskFull : .ioError, error.description)
        }
    }
}
