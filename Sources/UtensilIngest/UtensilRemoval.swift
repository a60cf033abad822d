import Foundation
import UtensilCatalog
import UtensilCore

/// Deleting utensils — to the trash, back from it, and for good — each as one operation that
/// owns the row and the files together.
///
/// Crash safety: the row is always committed first. Moving to or from the trash changes only
/// the row (the files stay). Deleting for good commits the row's removal, then removes both
/// files; a crash in between leaves files without a row, which start-up reconciliation
/// removes. So no step leaves a row without its files.
public struct UtensilRemoval: Sendable {
    public let settings: IngestSettings
    public let catalog: Catalog

    public init(settings: IngestSettings, catalog: Catalog) {
        self.settings = settings
        self.catalog = catalog
    }

    /// `delete`: to the trash, or for good when `now` is set or `trash_days` is 0.
    /// - Returns: the utensil as it is now (with `trashedAt` when trashed) or as it was.
    public func delete(id: UUID, now: Bool) throws(CatalogError) -> UtensilRecord {
        if now || settings.trashDays == 0 { return try deleteForGood(id: id) }
        return try catalog.trash(id: id)
    }

    /// Removes the row, then the original and the thumbnail.
    public func deleteForGood(id: UUID) throws(CatalogError) -> UtensilRecord {
        let record = try catalog.delete(id: id)
        removeFiles(of: record)
        return record
    }

    /// Brings a utensil back from the trash, under `newName` if given.
    public func restore(id: UUID, as newName: UtensilName?) throws(CatalogError) -> UtensilRecord {
        try catalog.restore(id: id, as: newName, claimName: settings.claimsNames)
    }

    /// When a utensil trashed at `trashedAt` is purged.
    public func purgeDate(trashedAt: Date) -> Date {
        trashedAt.addingTimeInterval(settings.trashDays * 86_400)
    }

    /// Deletes for good every utensil that has been in the trash for `trash_days`.
    /// - Returns: the utensils purged.
    public func purgeExpired(now: Date = Date()) throws(CatalogError) -> [UtensilRecord] {
        let due = try catalog.trashed(before: now.addingTimeInterval(-settings.trashDays * 86_400))
        var purged: [UtensilRecord] = []
        for record in due {
            do {
                purged.append(try deleteForGood(id: record.id))
            } catch .notFound {
                continue  // Restored or deleted meanwhile.
            }
        }
        return purged
    }

    private func removeFiles(of record: UtensilRecord) {
        let id = record.id.uuidString
        try? FileMoves.remove(settings.originalPath(id: id, fileExtension: record.fileExtension).description)
        try? FileMoves.remove(settings.thumbnailPath(id: id).description)
    }
}
