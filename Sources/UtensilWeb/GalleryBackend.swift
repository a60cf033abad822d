import Foundation
import UtensilControlProtocol
import UtensilCore

/// What the web gallery reads and changes, answered by the daemon exactly as the control
/// socket answers `utensilctl` (same requests, same replies, same JSON), so the web and the
/// CLI cannot drift apart.
public protocol GalleryBackend: Sendable {
    /// Answers `call` (list, show, status, rename, delete …) with the payload its request
    /// promises, or the control error. `webUser`
    /// is the signed-in user a change is made for.
    func answer<Reply>(_ call: ControlCall<Reply>, webUser: String?) async -> Result<Reply, ControlError>

    /// Every event from now on, until the daemon stops or the follower falls the queue's
    /// limit behind; and those after a `seq` it missed (``EventFollower/run(since:room:send:)``).
    func followEvents() -> EventFollower

    /// Whether the catalog and the storage answer now (`GET /readyz`), found within about
    /// 1.5 s whatever they do.
    func readiness() async -> Readiness

    /// The stored `rendition` of utensil `id` (its original of type `fileExtension`): its size
    /// and version; nil when there is none. Asked of the store.
    func renditionInfo(_ rendition: Rendition, of id: UUID, fileExtension: String) async throws -> StoredRendition?

    /// ``renditionInfo(_:of:fileExtension:)`` for a URL that names its version (`?v=`): a
    /// bucket's thumbnail kept in memory for another version is read again.
    func renditionInfo(_ rendition: Rendition, of id: UUID, fileExtension: String, askedAs version: String?) async throws -> StoredRendition?

    /// The bytes `range` of that rendition (fewer at its end), from the store.
    func readRendition(_ rendition: Rendition, of id: UUID, fileExtension: String, range: Range<Int64>) async throws -> [UInt8]

    /// The bytes `range` of that rendition (fewer at its end) handed to `consume` as the store
    /// reads them, the next chunk read once `consume` returns; what `consume` throws stops it.
    func streamRendition(
        _ rendition: Rendition, of id: UUID, fileExtension: String, range: Range<Int64>,
        into consume: ([UInt8]) async throws -> Void
    ) async throws

    /// The inbox folder: the empty gallery's "drop photos here".
    var inbox: String { get }

    /// Starts the uploaded file `fileName` (one name) in the inbox folder of `category` (nil:
    /// the inbox), marked as `uploader`'s; a refusal says what to do.
    func createUpload(fileName: String, category: String?, uploader: String) throws(UploadRefused) -> any UploadedFile

    /// Uploads larger than this are refused (`max_file_bytes`).
    var maxFileBytes: Int { get }

    /// The web users file (`web_users_file`).
    var usersFile: String { get }
}

extension GalleryBackend {
    /// ``renditionInfo(_:of:fileExtension:)``: a backend that keeps nothing in memory.
    public func renditionInfo(
        _ rendition: Rendition, of id: UUID, fileExtension: String, askedAs version: String?
    ) async throws -> StoredRendition? {
        try await renditionInfo(rendition, of: id, fileExtension: fileExtension)
    }

    /// ``readRendition(_:of:fileExtension:range:)`` of 128 KiB after another.
    public func streamRendition(
        _ rendition: Rendition, of id: UUID, fileExtension: String, range: Range<Int64>,
        into consume: ([UInt8]) async throws -> Void
    ) async throws {
        var offset = range.lowerBound
        while offset < range.upperBound {
            let chunk = offset..<min(offset + 128 * 1024, range.upperBound)
            let bytes = try await readRendition(rendition, of: id, fileExtension: fileExtension, range: chunk)
            if !bytes.isEmpty { try await consume(bytes) }
            guard bytes.count == chunk.count else { return }
            offset = chunk.upperBound
        }
    }
}

/// What `GET /readyz` reports: each part that does not answer, with a sentence saying why
/// (nil: it answers).
public struct Readiness: Sendable, Equatable {
    public var catalog: String?
    public var storage: String?

    public init(catalog: String?, storage: String?) {
        self.catalog = catalog
        self.storage = storage
    }

    public var isReady: Bool { catalog == nil && storage == nil }
}

/// What the gallery knows of a stored rendition before it serves it.
public struct StoredRendition: Sendable, Equatable {
    /// Its size in bytes.
    public var size: Int64
    /// A word that changes whenever it is replaced (its `ETag`); nil when the storage has none.
    public var version: String?

    public init(size: Int64, version: String?) {
        self.size = size
        self.version = version
    }
}
