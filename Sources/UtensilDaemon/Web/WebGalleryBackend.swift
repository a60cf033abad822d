import Foundation
import Glibc
import UtensilControlProtocol
import UtensilCore
import UtensilIngest
import UtensilStore
import UtensilWeb

/// The web gallery's view of the daemon: the control handler's replies (so the API's JSON is
/// `utensilctl --json`'s), its event stream and the state folder's layout.
struct WebGalleryBackend: GalleryBackend {
    let handler: ControlRequestHandler
    /// The one store: its settings are read at each request, so a reload (`max_file_bytes`) applies at once.
    let store: UtensilStore
    var settings: IngestSettings { store.settings }

    func answer<Reply>(_ call: ControlCall<Reply>, webUser: String?) async -> Result<Reply, ControlError> {
        guard call.request.command != .events else { return .failure(ControlError(.badRequest, "events is a stream; follow it instead.")) }
        // A signed-in web user changes with the daemon's own rights; the journal names the user.
        return await handler.reply(to: call.request, caller: .web(webUser)).result(as: Reply.self)
    }

    func followEvents() -> EventFollower { handler.events.follower() }

    /// Whether the storage folders can be used: a look at `originals/`, asked off the
    /// cooperative pool (a hung network file system blocks it).
    let storagePulse: Pulse

    func readiness() async -> Readiness {
        async let catalog = handler.pulse.read()
        async let storage = storagePulse.read()
        return Readiness(catalog: Self.problem(await catalog), storage: Self.problem(await storage))
    }

    private static func problem(_ reading: Result<Pulse.Reading, StoreError>) -> String? {
        switch reading {
        case .success(.answered): nil
        case .success(.unanswered(_, let since, let detail)): "not answering since \(since.formatted(.iso8601)): \(detail)"
        case .failure(let error): error.description
        }
    }

    /// A storage that cannot be read now is ``StorageUnavailable`` (a `503`).
    func renditionInfo(_ rendition: Rendition, of id: UUID, fileExtension: String) async throws -> StoredRendition? {
        try await renditionInfo(rendition, of: id, fileExtension: fileExtension, askedAs: nil)
    }

    /// `askedAs`: the URL's `?v=`, so that a bucket's thumbnail kept for another is read again.
    func renditionInfo(_ rendition: Rendition, of id: UUID, fileExtension: String, askedAs version: String?) async throws -> StoredRendition? {
        do throws(StoreError) {
            let status = try await store.renditionStatus(rendition, of: id, fileExtension: fileExtension, askedAs: version)
            return status.map { StoredRendition(size: $0.size, version: $0.version) }
        } catch {
            throw StorageUnavailable(reason: error.description)
        }
    }

    func readRendition(_ rendition: Rendition, of id: UUID, fileExtension: String, range: Range<Int64>) async throws -> [UInt8] {
        try await store.readRendition(rendition, of: id, fileExtension: fileExtension, range: range)
    }

    var inbox: String { settings.inbox.description }

    func createUpload(fileName: String, category: String?, uploader: String) throws(UploadRefused) -> any UploadedFile {
        try ConfinedUpload.refusing { () throws(UploadRefusal) in
            ConfinedUpload(try InboxUploads(settings: settings).create(fileName: fileName, category: category, uploader: uploader))
        }
    }

    var maxFileBytes: Int { settings.maxFileBytes }

    let usersFile: String
}
