import Foundation
import UtensilCore
import UtensilStorage

/// A utensil's renditions read by id, from whatever storage holds them: what the web's file
/// routes serve (size, version for the `ETag`, ranged reads), so that the same routes serve
/// any storage.
extension UtensilStore {
    /// The size and version of utensil `id`'s `rendition` (its original of type
    /// `fileExtension`); nil when the storage has none. Asked within a probe's time-out
    /// (``RenditionStorage/forProbes()``): a browser waits for it, and a bucket that does not
    /// answer is then said at once. `askedAs`: the version the reader names (the gallery's
    /// `?v=`), so that a storage keeping renditions in memory asks again when it changes.
    public func renditionStatus(
        _ rendition: Rendition, of id: UUID, fileExtension: String, askedAs version: String? = nil
    ) async throws(StoreError) -> RenditionStatus? {
        let key = RenditionKey(rendition, of: id, originalExtension: fileExtension)
        do throws(StorageError) {
            return try await storage.forProbes().status(of: key, askedAs: version)
        } catch .notFound {
            return nil
        } catch {
            throw .fileSystem("Cannot read \(key): \(error)")
        }
    }

    /// The bytes of utensil `id`'s `rendition`, all of them or those in `range` (fewer at its end).
    /// - Throws: ``StoreError/notFound(_:)`` when the storage has none.
    public func readRendition(
        _ rendition: Rendition, of id: UUID, fileExtension: String, range: Range<Int64>? = nil
    ) async throws(StoreError) -> [UInt8] {
        let key = RenditionKey(rendition, of: id, originalExtension: fileExtension)
        do throws(StorageError) {
            return try await storage.read(key, range: range)
        } catch .notFound {
            throw .notFound("There is no \(key).")
        } catch {
            throw .fileSystem("Cannot read \(key): \(error)")
        }
    }

    /// The bytes of utensil `id`'s `rendition`, all of them or those in `range`, handed to
    /// `consume` as the storage reads them (``RenditionStorage/stream(_:range:into:)``): one
    /// answer streamed from a bucket, ranged reads from a folder.
    /// - Throws: ``StoreError/notFound(_:)`` when the storage has none, ``StoreError`` for a
    ///   storage that fails, or what `consume` throws.
    public func streamRendition(
        _ rendition: Rendition, of id: UUID, fileExtension: String, range: Range<Int64>? = nil,
        into consume: ([UInt8]) async throws -> Void
    ) async throws {
        let key = RenditionKey(rendition, of: id, originalExtension: fileExtension)
        do {
            try await storage.stream(key, range: range, into: consume)
        } catch StorageError.notFound {
            throw StoreError.notFound("There is no \(key).")
        } catch let error as StorageError {
            throw StoreError.fileSystem("Cannot read \(key): \(error)")
        }
    }
}
