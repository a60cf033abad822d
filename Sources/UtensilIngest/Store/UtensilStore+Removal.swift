import Foundation
import UtensilCatalog
import UtensilCore

/// Deleting utensils — to the trash, back from it, and for good.
///
/// Crash safety: the row is always committed first. Moving to or from the trash changes only
/// the row (the files stay). Deleting for good commits the row's removal, then removes both
/// files; a crash in between leaves files without a row, which start-up reconciliation
/// removes. So no step leaves a row without its files. A file that cannot be removed is
/// logged and reported to the caller, never passed over.
extension UtensilStore {
    /// `delete`: to the trash, or for good when `now` is set or `trash_days` is 0.
    /// - Returns: the utensil as it is now (with `trashedAt` when trashed) or as it was.
    /// - Throws: ``StoreError/filesNotRemoved(_:)`` when the row is gone but a file stayed.
    public func delete(id: UUID, now: Bool) throws(StoreError) -> UtensilRecord {
        guard let record = try catalogCall({ () throws(CatalogError) in try catalog.utensil(id: id) }) else {
            throw .catalog(.notFound)
        }
        if record.trashedAt != nil && !now {
            throw .notFound(
                "\(record.name) is already in the trash; delete it for good with `utensilctl delete --now \(record.id.uuidString)`.")
        }
        if now || settings.trashDays == 0 {
            let (deleted, problems) = try catalogCall { () throws(CatalogError) in try deleteForGood(id: id) }
            if !problems.isEmpty {
                throw .filesNotRemoved(
                    "\(deleted.name) was deleted for good, but not all its files could be removed (\(problems.map(\.description).joined(separator: "; "))); restarting utensild removes what is left, and `utensilctl check` lists it meanwhile.")
            }
            return deleted
        }
        return try catalogCall { () throws(CatalogError) in try catalog.trash(id: id, at: Date()) }
    }

    /// Brings a utensil back from the trash, under `newName` if given.
    public func restore(id: UUID, as newName: String?) throws(StoreError) -> UtensilRecord {
        guard let record = try catalogCall({ () throws(CatalogError) in try catalog.utensil(id: id) }) else {
            throw .catalog(.notFound)
        }
        var name: UtensilName?
        if let newName {
            do {
                name = try UtensilName(validating: newName)
            } catch {
                throw .invalidName(error.message)
            }
        }
        do {
            return try catalog.restore(id: id, as: name, claimName: settings.claimsNames)
        } catch .duplicateName(let existing) {
            throw .duplicateName(
                "A utensil named \(existing) was added meanwhile; restore this one under another name with `utensilctl restore \(record.id.uuidString) --as NEW-NAME`.")
        } catch .notFound {
            throw .notFound("\(record.name) is not in the trash; `utensilctl trash` lists what is.")
        } catch {
            throw .catalog(error)
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
    }

    /// Deletes for good every utensil that has been in the trash for `trash_days`.
    public func purgeExpired(now: Date = Date()) throws(CatalogError) -> Purge {
        let due = try catalog.trashed(before: now.addingTimeInterval(-settings.trashDays * 86_400))
        var purge = Purge()
        for record in due {
            do {
                let (purged, problems) = try deleteForGood(id: record.id)
                purge.purged.append(purged)
                purge.filesNotRemoved += problems.map(\.path)
            } catch .notFound {
                continue  // Restored or deleted meanwhile.
            }
        }
        return purge
    }

    /// Removes the row, then the original and the thumbnail.
    /// - Returns: the row as it was, and the files that could not be removed (logged).
    func deleteForGood(id: UUID) throws(CatalogError) -> (UtensilRecord, [SystemError]) {
        let record = try catalog.delete(id: id)
        faults.reached(.deleteCommitted)
        return (record, removeFiles(of: record))
    }

    /// Removes a deleted utensil's files (one already gone is fine); logs and returns those
    /// that cannot be.
    private func removeFiles(of record: UtensilRecord) -> [SystemError] {
        var problems: [SystemError] = []
        do throws(SystemError) {
            let (originals, thumbnails) = try folders()
            for (folder, name) in [
                (originals, Self.originalName(id: record.id, fileExtension: record.fileExtension)),
                (thumbnails, Self.thumbnailName(id: record.id)),
            ] {
                do {
                    try folder.unlink(name)
                } catch where !error.isNotFound {
                    problems.append(error)
                } catch {}
                faults.reached(.deleteFileRemoved)
            }
        } catch {
            problems.append(error)
        }
        for problem in problems {
            logger.error(
                "Deleted utensil \(record.name) but cannot \(problem); restarting utensild removes it",
                metadata: .journal([.utensilID: .string(record.id.uuidString)]))
        }
        return problems
    }
}
