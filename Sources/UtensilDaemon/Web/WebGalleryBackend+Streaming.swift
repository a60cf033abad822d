import Foundation
import UtensilCore
import UtensilStore

extension WebGalleryBackend {
    /// The store's streamed read: one GET from a bucket, passed on as it arrives.
    func streamRendition(
        _ rendition: Rendition, of id: UUID, fileExtension: String, range: Range<Int64>,
        into consume: ([UInt8]) async throws -> Void
    ) async throws {
        try await store.streamRendition(rendition, of: id, fileExtension: fileExtension, range: range, into: consume)
    }
}
