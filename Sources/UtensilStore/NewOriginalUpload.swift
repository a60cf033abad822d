import Foundation
import UtensilCatalogModel
import UtensilCore
import UtensilStorage

/// A new utensil's original on its way into the storage ahead of its other renditions
/// (``RenditionStorage/beginNew(original:sha256:of:originalExtension:)``), begun by
/// ``UtensilStore/beginNewOriginal(_:sha256:fileExtension:)`` as soon as the drop's bytes are read,
/// so that a bucket's upload of the largest rendition overlaps the photo's decode rather than
/// following it. ``UtensilStore/write(original:thumbnail:preview:square:of:replacing:claims:begun:)``
/// takes it in; one the drop does not get to (rejected, a replacement, a failure) goes to
/// ``UtensilStore/abandon(_:)``, which undoes it before the drop's outcome is told.
package struct NewOriginalUpload: Sendable {
    /// The id made for the new utensil: the drop's row must have it.
    package let utensil: UUID
    fileprivate let upload: Task<Result<StagedRenditions?, StorageError>, Never>

    /// The operation the upload began (nil: the storage stages the original with the rest),
    /// once it is done.
    fileprivate func begun() async throws(StorageError) -> StagedRenditions? {
        try await upload.value.get()
    }
}

extension UtensilStore {
    /// Begins putting `original` of a new utensil, of type `fileExtension` and SHA-256 `sha256`
    /// (lower-case hex, as the catalog records it), under an id made now, in a task of its own:
    /// the calling engine thread goes on to decode the photo. Nil for a storage that begins
    /// nothing ahead (``RenditionStorage/beginsNewAhead``): the original goes with the rest.
    package func beginNewOriginal(_ original: [UInt8], sha256: String, fileExtension: String) -> NewOriginalUpload? {
        let storage = storage
        guard storage.beginsNewAhead else { return nil }
        let utensil = UUID()
        let upload = Task { () async -> Result<StagedRenditions?, StorageError> in
            do throws(StorageError) {
                return .success(try await storage.beginNew(original: original, sha256: sha256, of: utensil, originalExtension: fileExtension))
            } catch {
                return .failure(error)
            }
        }
        return NewOriginalUpload(utensil: utensil, upload: upload)
    }

    /// Undoes an upload the drop did not get to use, waiting on this thread for it to finish:
    /// no object of the drop is left once its outcome is told. One that cannot be removed is
    /// left with its marker, which the next start (or another host's sweeper) finds.
    package func abandon(_ upload: NewOriginalUpload) {
        let begun: StagedRenditions?
        do throws(StorageError) {
            begun = try storageCall { _ async throws(StorageError) in try await upload.begun() }
        } catch {
            return  // It failed, and the storage took back what it had put.
        }
        if let begun { discard(begun) }
    }

    /// The renditions of a new utensil, `begun` ahead with its original or not: `renditions`
    /// whole, or all but the original joining the operation its upload began.
    func stageNew(
        _ renditions: [Rendition: [UInt8]], of record: UtensilRecord, begun upload: NewOriginalUpload?
    ) throws(StorageError) -> StagedRenditions {
        try storageCall { storage async throws(StorageError) in
            if let upload, let begun = try await upload.begun() {
                var others = renditions
                others[.original] = nil
                return try await storage.stageNew(others, joining: begun)
            }
            return try await storage.stageNew(renditions, of: record.id, originalExtension: record.fileExtension)
        }
    }
}
