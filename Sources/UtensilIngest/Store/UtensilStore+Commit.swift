import Foundation
import UtensilCatalog

/// The commit of an ingest: a new utensil's files written, made durable, then its row
/// committed — or, for a photo replacement, its new files written under temporary names,
/// the row's photo committed, then the files moved into place (see `UtensilStore+Replace`).
extension UtensilStore {
    /// Writes a utensil's original and thumbnail for `record` (not yet durable: see
    /// ``commit(_:)``). For a replacement of `replacing`'s photo they are written under
    /// temporary names beside its files. Nothing is left behind when this throws.
    func write(original: [UInt8], thumbnail: [UInt8], of record: UtensilRecord, replacing: UtensilRecord?)
        throws(SystemError) -> PendingUtensil
    {
        let (originals, thumbnails) = try folders()
        let files = StoredFiles(
            originals: originals,
            original: replacing == nil
                ? Self.originalName(id: record.id, fileExtension: record.fileExtension)
                : Self.replacementName(id: record.id, fileExtension: record.fileExtension),
            thumbnails: thumbnails,
            thumbnail: replacing == nil
                ? Self.thumbnailName(id: record.id) : Self.replacementName(id: record.id, fileExtension: "jpeg"))
        do throws(SystemError) {
            try FileOps.writeThroughTemporary(original, in: files.originals, as: files.original, durable: false)
            faults.reached(.originalWritten)
            try FileOps.writeThroughTemporary(thumbnail, in: files.thumbnails, as: files.thumbnail, durable: false)
            faults.reached(.thumbnailWritten)
        } catch {
            discard(files)
            throw error
        }
        return PendingUtensil(record: record, replacing: replacing, files: files)
    }

    /// What became of one pending utensil at its commit.
    enum CommitResult: Sendable {
        case committed(UtensilRecord)
        /// SQLite refused the row (or the whole transaction failed); its files are removed.
        case refused(CatalogError)
        /// Its files could not be made durable (they are removed), or a committed
        /// replacement's files could not be moved into place (start-up reconciliation finishes it).
        case failed(TransientFailure)
    }

    /// Commits any number of pending utensils at once: their files are made durable together
    /// (each file, then each folder once), the new rows are committed in one transaction (one
    /// WAL commit), each replacement on its own, and then its files are moved into place. A row
    /// that SQLite refuses refuses only its own utensil.
    ///
    /// - Returns: one result per pending utensil, in the same order.
    func commit(_ batch: [PendingUtensil]) -> [CommitResult] {
        // Make the files durable: each file, then each folder once for the whole group.
        do throws(SystemError) {
            for pending in batch {
                try pending.files.sync()
            }
            var synced = Set<FileIdentity>()
            for folder in batch.flatMap({ [$0.files.originals, $0.files.thumbnails] })
            where synced.insert(folder.identity).inserted {
                try folder.sync()
            }
            faults.reached(.filesDurable)
        } catch {
            batch.forEach { discard($0.files) }
            return batch.map { _ in .failed(TransientFailure(error)) }
        }

        // Commit the new rows in one transaction. If it fails, none of the files is left behind.
        var results = batch.map { CommitResult.committed($0.record) }
        let fresh = batch.indices.filter { batch[$0].replacing == nil }
        if !fresh.isEmpty {
            do {
                for (index, refusal) in zip(fresh, try catalog.insert(batch: fresh.map { batch[$0].record }))
                where refusal != nil {
                    results[index] = .refused(refusal!)
                }
            } catch {
                batch.forEach { discard($0.files) }
                return batch.map { _ in .refused(error) }
            }
            faults.reached(.committed)
        }
        for index in batch.indices where batch[index].replacing != nil {
            results[index] = commitReplacement(batch[index])
        }
        for (pending, result) in zip(batch, results) {
            if case .refused = result { discard(pending.files) }
        }
        return results
    }

    /// Removes the files of a utensil that will not be committed. One that cannot be removed
    /// is logged; having no row, it is removed by start-up reconciliation.
    func discard(_ files: StoredFiles) {
        for (folder, name) in [(files.originals, files.original), (files.thumbnails, files.thumbnail)] {
            do {
                try folder.unlink(name)
            } catch where !error.isNotFound {
                logger.warning("Cannot \(error); it has no row, so restarting utensild removes it")
            } catch {}
        }
    }

    /// Commits a replacement's row (its files are durable under their temporary names), then
    /// moves its files into place. A failure of the move is finished by start-up reconciliation.
    private func commitReplacement(_ pending: PendingUtensil) -> CommitResult {
        guard let old = pending.replacing else { return .refused(.notFound) }
        let record: UtensilRecord
        do {
            record = try catalog.replacePhoto(with: pending.record)
        } catch {
            return .refused(error)
        }
        faults.reached(.committed)
        do throws(SystemError) {
            try moveReplacementIntoPlace(
                id: old.id, fileExtension: pending.record.fileExtension, oldExtension: old.fileExtension,
                originals: pending.files.originals, thumbnails: pending.files.thumbnails)
            return .committed(record)
        } catch {
            logger.error(
                "The photo of \(old.name) was replaced in the catalog but its new files could not be moved into place (\(error)); restarting utensild finishes the move",
                metadata: .journal([.utensilID: .string(old.id.uuidString)]))
            return .failed(TransientFailure(error))
        }
    }
}

/// A utensil whose files are written beneath the state folder (not yet durable) and whose
/// row is not yet committed: waiting for ``UtensilStore/commit(_:)``. If it is never
/// committed (the process dies), start-up reconciliation removes its files.
struct PendingUtensil: Sendable {
    let record: UtensilRecord
    /// The utensil whose photo this replaces (`duplicate_names = "replace"`), as it was.
    let replacing: UtensilRecord?
    let files: StoredFiles
}

/// A pending utensil's original and thumbnail, by name in their held folders.
struct StoredFiles: Sendable {
    let originals: HeldFolder
    let original: [UInt8]
    let thumbnails: HeldFolder
    let thumbnail: [UInt8]

    /// Makes both files durable (their folders are synced by the caller).
    func sync() throws(SystemError) {
        try FileOps.fsyncFile(original, in: originals)
        try FileOps.fsyncFile(thumbnail, in: thumbnails)
    }
}
