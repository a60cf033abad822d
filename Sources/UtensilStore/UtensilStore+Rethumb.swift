import Foundation
import Glibc
import UtensilCatalogModel
import UtensilCore
import UtensilStorage

/// `rethumb`: thumbnails, previews and grid squares made again from the originals (see ``ThumbnailRegenerator``).
extension UtensilStore {
    /// Makes utensil `id`'s thumbnail (at the current thumbnail settings), preview and grid square again,
    /// replacing the old ones atomically; decoding counts against `memory` like an ingest's.
    public func rethumb(id: UUID, memory: MemoryBudget) throws(RethumbError) {
        try ThumbnailRegenerator(store: self, memory: memory).regenerate(id)
    }

    /// Up to `limit` utensil ids after `id` (the trash too), in id order, and of those the
    /// ones whose thumbnail, preview or grid square is missing from the storage or whose row has no
    /// fingerprint (ingested before fingerprints): a walk over the whole catalog for `rethumb
    /// --missing` (or, taking every id, `--all`) that holds one page at a time.
    public func rethumbPage(after id: UUID?, limit: Int) async throws(StoreError) -> (ids: [UUID], missing: [UUID]) {
        let ids = try await fromCatalog { () async throws(CatalogError) in try await catalog.ids(after: id, limit: limit) }
        let unfingerprinted = try await fromCatalog { () async throws(CatalogError) in try await catalog.unfingerprinted(among: ids) }
        var missing: [UUID] = []
        do throws(StorageError) {
            for id in ids {
                if unfingerprinted.contains(id) {
                    missing.append(id)
                    continue
                }
                for rendition in [Rendition.thumbnail, .preview, .square] {
                    do throws(StorageError) {
                        _ = try await storage.size(of: RenditionKey(rendition, of: id, originalExtension: "jpeg"))
                    } catch .notFound {
                        missing.append(id)
                        break
                    }
                }
            }
        } catch {
            throw .fileSystem("Cannot look for the thumbnails and previews: \(error).")
        }
        return (ids, missing)
    }

    /// Every utensil (the trash too) whose thumbnail, preview or grid square is missing or whose row
    /// has no fingerprint, in id order.
    public func missingThumbnails() async throws(StoreError) -> [UUID] {
        var missing: [UUID] = []
        var after: UUID?
        while true {
            let page = try await rethumbPage(after: after, limit: 1000)
            guard let last = page.ids.last else { return missing }
            missing += page.missing
            after = last
        }
    }

    /// Utensils in the catalog, the trash too.
    public func countAll() async throws(StoreError) -> Int {
        try await fromCatalog { () async throws(CatalogError) in try await catalog.countAll() }
    }

    /// Whether `previews/` holds no file at all while the catalog has utensils: a state folder
    /// of a version without previews, whose utensils need theirs made (`rethumb --missing`).
    /// Reads one entry of the folder, not all of it. Never for a bucket, which no version
    /// without previews wrote to (its hosts' `previews/` stay empty).
    public func previewsNeverMade() async throws(StoreError) -> Bool {
        guard storage is LocalFolderStorage else { return false }
        guard let folder = opendir(settings.previews.description) else {
            throw .fileSystem("Cannot look into \(settings.previews): \(String(cString: strerror(errno))).")
        }
        defer { closedir(folder) }
        while let entry = readdir(folder) {
            let name = String(decoding: DirectoryEntryName.bytes(of: entry), as: UTF8.self)
            if name != "." && name != ".." { return false }
        }
        return try await countAll() > 0
    }
}
