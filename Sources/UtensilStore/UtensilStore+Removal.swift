import Foundation
import UtensilCatalogModel
import UtensilCore
import UtensilStorage

/// Deleting utensils — to the trash, back from it, and for good.
///
/// Crash safety: moving to or from the trash changes only the row (the files stay). Deleting
/// for good takes its renditions out into a staged operation (durably), commits the row's
/// removal, then discards them: a crash before the commit has the next start put them back,
/// one after it has it remove them (see `UtensilStore+Staging`). So no step leaves a row without its
/// files, nor a file without its row outside `staging/`. A file that cannot be removed is
/// logged and reported to the caller, never passed over.
extension UtensilStore {
    /// What `delete` did.
    public enum Deletion: Sendable, Equatable {
        /// Moved to the trash: the utensil as it is now, with `trashedAt`.
        case trashed(UtensilRecord)
        /// Row and files removed for good: the utensil as it was (its `trashedAt` set when
        /// it was taken from the trash).
        case deletedForGood(UtensilRecord)
    }

    /// `delete`: to the trash, or for good when `now` is set or `trash_days` is 0.
    /// - Throws: ``StoreError/filesNotRemoved(_:)`` when the row is gone but a file stayed.
    public func delete(id: UUID, now: Bool) async throws(StoreError) -> Deletion {
        guard let record = try await fromCatalog({ () async throws(CatalogError) in try await catalog.utensil(id: id) }) else {
            throw .notFound(StoreError.noSuchUtensil)
        }
        if record.trashedAt != nil && !now {
            throw .notFound(
                "\(record.name) is already in the trash; delete it for good with `utensilctl delete --now \(record.id.uuidString)`.")
        }
        if now || settings.trashDays == 0 {
            let (deleted, problems) = try await deleteForGood(record)
            if !problems.isEmpty {
                throw .filesNotRemoved(
                    "\(deleted.name) was deleted for good, but not all its files could be removed (\(problems.map(\.description).joined(separator: "; "))); restarting utensild removes what is left, and `utensilctl check` lists it meanwhile.")
            }
            return .deletedForGood(deleted)
        }
        let trashed = try await fromCatalog { () async throws(CatalogError) in try await catalog.trash(id: id, at: Date()) }
        changes.announce()
        return .trashed(trashed)
    }

    /// Brings a utensil back from the trash, under `newName` if given.
    public func restore(id: UUID, as newName: String?) async throws(StoreError) -> UtensilRecord {
        guard let record = try await fromCatalog({ () async throws(CatalogError) in try await catalog.utensil(id: id) }) else {
            throw .notFound(StoreError.noSuchUtensil)
        }
        var name: UtensilName?
        if let newName {
            do {
                name = try CarriedName.utensilName(newName)
            } catch {
                throw .invalidName(error.message)
            }
        }
        do {
            let claimName = settings.claimsNames
            let restored = try await catalog.restore(id: id, as: name, claimName: claimName)
            heldFingerprints.committed([restored])
            changes.announce()
            return restored
        } catch .duplicateName(let existing) {
            throw .duplicateName(
                "A utensil named \(existing) was added meanwhile; restore this one under another name with `utensilctl restore \(record.id.uuidString) --as NEW-NAME`.")
        } catch .notFound {
            throw .notFound("\(record.name) is not in the trash; `utensilctl trash` lists what is.")
        } catch {
            throw StoreError(error)
        }
    }

    /// When a utensil trashed at `trashedAt` is purged.
    public func purgeDate(trashedAt: Date) -> Date {
        trashedAt.addingTimeInterval(settings.trashDays * 86_400)
    }

    /// What one purge of the trash did.
    public struct Purge: Sendable {
        /// The utensils deleted for good.
        public var purged: [UtensilRecord] = []
        /// Files of theirs that could not be removed (already logged one by one).
        public var filesNotRemoved: [String] = []
        /// Whether another host sharing the catalog holds the purge (``trashPurgeDuty``), so
        /// this host did not purge.
        public var anotherHostPurges = false
    }

    /// The duty of purging the trash, which one host sharing the catalog does at a time.
    public static let trashPurgeDuty = "trash-purge"
    /// How long a duty stays this host's without a renewal: another host takes it over this
    /// long after this one stopped renewing it (died, or lost the catalog).
    public static let dutyLease: TimeInterval = 60

    /// Takes or renews `duty` for this host (its `host_name`) for ``dutyLease``; false when
    /// another host holds it (see `CatalogDuties`).
    public func holdDuty(_ duty: String, now: Date = Date()) async throws(StoreError) -> Bool {
        let host = settings.hostName
        return try await fromCatalog { () async throws(CatalogError) in
            try await catalog.claimDuty(duty, for: host, now: now, until: now.addingTimeInterval(Self.dutyLease))
        }
    }

    /// Deletes for good every utensil that has been in the trash for `trash_days`, when this
    /// host holds the purge (one host at a time: ``trashPurgeDuty``, renewed before each
    /// utensil so that a long purge keeps it, and stopped when it was lost).
    public func purgeExpired(now: Date = Date()) async throws(StoreError) -> Purge {
        var purge = Purge()
        guard try await holdDuty(Self.trashPurgeDuty) else {
            purge.anotherHostPurges = true
            return purge
        }
        let cutoff = now.addingTimeInterval(-settings.trashDays * 86_400)
        let due = try await fromCatalog { () async throws(CatalogError) in try await catalog.trashed(before: cutoff) }
        for record in due {
            guard try await holdDuty(Self.trashPurgeDuty) else {
                purge.anotherHostPurges = true
                break
            }
            do {
                let (purged, problems) = try await deleteForGood(record)
                purge.purged.append(purged)
                purge.filesNotRemoved += problems.map(\.description)
            } catch .notFound {
                continue  // Restored or deleted meanwhile.
            }
        }
        // The leases that ran out long ago (the drops of a shared inbox leave theirs) go with it;
        // leases are taken on the clock (``holdDuty(_:now:)``), so they are forgotten by it too.
        let forgetBefore = Date().addingTimeInterval(-Self.expiredLeasesKept)
        _ = try await fromCatalog { () async throws(CatalogError) in try await catalog.forgetDuties(expiredBefore: forgetBefore) }
        return purge
    }

    /// How long a lease that ran out is kept before a purge forgets it.
    static let expiredLeasesKept: TimeInterval = 3600

    /// Takes the renditions out (staged), removes the row, then discards them.
    /// - Returns: the row as it was, and why its files could not be removed (logged).
    func deleteForGood(_ record: UtensilRecord) async throws(StoreError) -> (UtensilRecord, [StorageError]) {
        // The gate first, then the utensil's lock: the order every operation takes them in.
        try await snapshotGate.passing { () async throws(StoreError) in
            try await whileChanging(record.id) { () async throws(StoreError) in try await deleteForGoodNow(record) }
        }
    }

    private func deleteForGoodNow(_ record: UtensilRecord) async throws(StoreError) -> (UtensilRecord, [StorageError]) {
        let staged: StagedRenditions
        do throws(StorageError) {
            staged = try await storage.unpublish(Self.renditionKeys(of: record))
        } catch {
            throw .fileSystem("\(record.name) was not deleted: its files cannot be moved aside (\(error)); nothing was changed.")
        }
        faults.reached(.deleteFilesStaged)
        let deleted: UtensilRecord
        do throws(CatalogError) {
            deleted = try await catalog.delete(id: record.id)
            changes.announce()
        } catch .notFound {
            await discardStaged(staged)  // Deleted meanwhile: what was staged has no row.
            throw .notFound(StoreError.noSuchUtensil)
        } catch {
            await putBack(staged, of: record)
            throw StoreError(error)
        }
        faults.reached(.deleteCommitted)
        do throws(StorageError) {
            try await storage.discard(staged)
        } catch {
            logger.error(
                "Deleted utensil \(record.name) but cannot remove its files (\(error)); restarting utensild removes them",
                metadata: .journal([.utensilID: .string(record.id.uuidString)]))
            return (deleted, [error])
        }
        return (deleted, [])
    }

    /// Puts renditions taken out for a delete back, when the delete did not happen.
    private func putBack(_ staged: StagedRenditions, of record: UtensilRecord) async {
        do throws(StorageError) {
            try await storage.publish(staged)
        } catch {
            logger.error(
                "Cannot put the files of utensil \(record.name) back into place (\(error)); restarting utensild does it",
                metadata: .journal([.utensilID: .string(record.id.uuidString)]))
        }
    }

    /// Removes renditions taken out for a delete whose row was gone already.
    private func discardStaged(_ staged: StagedRenditions) async {
        do throws(StorageError) {
            try await storage.discard(staged)
        } catch {
            logger.warning(
                "Cannot remove the staged files of utensil \(staged.utensil.uuidString) (\(error)); it has no row, so restarting utensild removes them",
                metadata: .journal([.utensilID: .string(staged.utensil.uuidString)]))
        }
    }
}
