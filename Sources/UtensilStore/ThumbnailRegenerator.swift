import Foundation
import Glibc
import UtensilCatalogModel
import UtensilCodec
import UtensilStorage

/// Why a utensil's thumbnail and preview could not be made again.
public enum RethumbError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The utensil was deleted meanwhile.
    case gone(UUID)
    /// Its original is missing or unreadable.
    case originalMissing(UUID, StorageError)
    /// Its original is not the photo its row describes (another hash).
    case originalChanged(UUID)
    /// Decoding would need more than the whole `memory_budget`.
    case tooLarge(UUID, bytes: Int)
    /// The codec refused the original.
    case undecodable(UUID, ImageCodecError)
    /// Writing the new thumbnail or preview failed (disk full …); the old ones stay.
    case write(UUID, StorageError)
    /// The catalog could not be read (busy, or failing): nothing was done; try again later.
    case catalogUnavailable(UUID, String)

    public var description: String {
        switch self {
        case .gone(let id):
            "Utensil \(id.uuidString) was deleted meanwhile; nothing to do."
        case .originalMissing(let id, let error):
            "The original of \(id.uuidString) cannot be read (\(error)); `utensilctl check` lists what is missing, restore it from a backup."
        case .originalChanged(let id):
            "The original of \(id.uuidString) is not the photo its row describes; restore it from a backup, then rethumb it again."
        case .tooLarge(let id, let bytes):
            "Decoding the original of \(id.uuidString) takes \(bytes >> 20) MiB, more than memory_budget; raise memory_budget and rethumb it again."
        case .undecodable(let id, let error):
            "The original of \(id.uuidString) could not be decoded (\(error)); replace its photo by dropping a new one of the same name."
        case .write(let id, let error):
            "The thumbnail and preview of \(id.uuidString) could not be written (\(error)); the old ones stay; free some space and rethumb it again."
        case .catalogUnavailable(let id, let error):
            "The catalog could not be read for \(id.uuidString) (\(error)); nothing was changed; rethumb it again later."
        }
    }
}

/// Makes a utensil's thumbnail and preview again from its original with the current
/// thumbnail settings (`rethumb`), its original read from the store's storage and the new
/// renditions put in place of the old ones through it (see
/// ``UtensilStore/replaceRenditions(of:thumbnail:preview:)``): a crash leaves the old ones or
/// the new ones, whole. Blocking; safe to call from several threads at once.
struct ThumbnailRegenerator: Sendable {
    let store: UtensilStore
    let maker: ThumbnailMaker
    let memory: MemoryBudget

    var settings: IngestSettings { store.settings }
    var catalog: any CatalogBackend { store.catalog }

    init(store: UtensilStore, memory: MemoryBudget) {
        self.store = store
        self.maker = ThumbnailMaker(request: store.settings.renditions)
        self.memory = memory
    }

    /// Makes the thumbnail of utensil `id` again. A photo replaced while this ran (its row's
    /// hash changed) is done once more from the new original.
    public func regenerate(_ id: UUID) throws(RethumbError) {
        var attempts = 0
        while true {
            attempts += 1
            // Only a missing row is "gone": a busy or failing catalog is an error, never a success.
            guard let record = try row(id) else { throw .gone(id) }
            try regenerate(record)
            guard let now = try row(id) else { return }
            if now.sha256 == record.sha256 || attempts >= 3 { return }
        }
    }

    /// The row of `id`, nil when there is none.
    private func row(_ id: UUID) throws(RethumbError) -> UtensilRecord? {
        do {
            return try CatalogAwait.run { () async throws(CatalogError) in try await catalog.utensil(id: id) }
        } catch {
            throw .catalogUnavailable(id, "\(error)")
        }
    }

    private func regenerate(_ record: UtensilRecord) throws(RethumbError) {
        let id = record.id
        let key = RenditionKey(.original, of: id, originalExtension: record.fileExtension)
        let size: Int64, header: [UInt8]
        do throws(StorageError) {
            (size, header) = try store.storageCall { storage async throws(StorageError) in
                let size = try await storage.size(of: key)
                return (size, try await storage.read(key, range: 0..<min(size, Int64(PhotoFormats.headerBytes))))
            }
        } catch {
            throw .originalMissing(id, error)
        }
        let cost = Int(size) + (header.withUnsafeBytes { try? maker.decodeCost(of: $0) } ?? 0)
        guard cost <= memory.bytes else { throw .tooLarge(id, bytes: cost) }
        memory.acquire(cost)
        defer { memory.release(cost) }
        let read: [UInt8]
        do throws(StorageError) {
            read = try store.storageCall { storage async throws(StorageError) in try await storage.read(key, range: nil) }
        } catch {
            throw .originalMissing(id, error)
        }
        // Another size than a moment ago: replaced meanwhile, as another hash says.
        guard Int64(read.count) == size, ContentHash.sha256(of: read) == record.sha256 else {
            // A replacement moved a new original into place meanwhile: its row says so.
            if let now = try row(id), now.sha256 != record.sha256 { return }
            throw .originalChanged(id)
        }
        let thumbnail: Thumbnail
        do {
            thumbnail = try read.withUnsafeBytes { raw in
                Result { () throws(ImageCodecError) in try maker.makeThumbnail(from: raw) }
            }.get()
        } catch {
            throw .undecodable(id, error)
        }
        do throws(RethumbError) {
            try store.replaceRenditions(
                of: id, thumbnail: thumbnail.jpeg, preview: thumbnail.renderedPreview.jpeg, square: thumbnail.square)
        } catch .gone {
            return  // Deleted meanwhile: `regenerate(_:)` finds its row gone.
        }
        // A utensil ingested before fingerprints gets its own (a photo replaced meanwhile keeps its new one).
        if let fingerprint = PhotoFingerprint.of(thumbnail), fingerprint != record.fingerprint {
            let sha256 = record.sha256
            do {
                _ = try CatalogAwait.run { () async throws(CatalogError) in
                    try await catalog.setFingerprint(id: id, to: fingerprint, ofPhoto: sha256)
                }
            } catch {
                throw .catalogUnavailable(id, "\(error)")
            }
        }
    }
}
