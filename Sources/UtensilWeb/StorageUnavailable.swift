import Foundation
import Hummingbird
import UtensilCore

/// What a ``GalleryBackend`` throws when the storage of the renditions cannot be read now (a
/// bucket that does not answer, a folder that fails): the file routes answer `503` with a
/// `Retry-After` and a sentence saying so, not a `500`.
public struct StorageUnavailable: Error, Sendable {
    /// The storage's own words, for the journal; not shown to the browser.
    public let reason: String

    public init(reason: String) {
        self.reason = reason
    }

    /// The answer of a file route meanwhile.
    var problem: WebProblem {
        var problem = WebProblem(
            .serviceUnavailable, .busy,
            "The photos' storage does not answer right now; the gallery serves the file again as soon as it does.")
        problem.headers[.retryAfter] = "5"
        return problem
    }
}

extension GalleryBackend {
    /// ``renditionInfo(_:of:fileExtension:)``, a storage that cannot be read now as its `503`.
    func storedRenditionInfo(
        _ rendition: Rendition, of id: UUID, fileExtension: String, askedAs version: String? = nil
    ) async throws -> StoredRendition? {
        do {
            return try await renditionInfo(rendition, of: id, fileExtension: fileExtension, askedAs: version)
        } catch let unavailable as StorageUnavailable {
            throw unavailable.problem
        }
    }
}
