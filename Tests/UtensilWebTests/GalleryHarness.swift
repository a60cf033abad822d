import CoreMetrics
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import UtensilConfig
import UtensilControlProtocol
import UtensilCore
import UtensilWebUsers

@testable import UtensilWeb

/// A ``GalleryBackend`` held in memory: one utensil whose files are real files in a temporary
/// folder, and a real web users file. The daemon's `WebGalleryBackend` needs its whole control
/// handler (store, scheduler, rethumbing, events, heart); the HTTP layer is what these suites
/// test, so the replies are built here, through the same `ControlReply` the daemon sends.
struct MemoryBackend: GalleryBackend {
    static let id = "6F1A2B3C-4D5E-4F60-8A9B-0C1D2E3F4A5B"
    static let user = "alice"
    static let password = "correct horse battery"

    let root: URL
    let readinessNow: Readiness
    let utensil: UtensilInfo
    /// `utensil`, then the utensils called `more` (rows only, without files), in list order.
    let utensils: [UtensilInfo]

    /// A fresh folder with the utensil's thumbnail, preview and original, and a users file
    /// holding ``user``; the utensil is called `name`.
    init(readiness: Readiness = Readiness(catalog: nil, storage: nil), name: String = "Spoon", more: [String] = []) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("utensil-web-\(UUID().uuidString)")
        for folder in ["thumbnails", "previews", "originals", "inbox"] {
            try FileManager.default.createDirectory(at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        readinessNow = readiness
        let original = root.appendingPathComponent("originals/\(Self.id).png")
        try Data("original bytes".utf8).write(to: original)
        try Data("thumbnail bytes".utf8).write(to: root.appendingPathComponent("thumbnails/\(Self.id).jpeg"))
        try Data("preview bytes".utf8).write(to: root.appendingPathComponent("previews/\(Self.id).jpeg"))
        utensil = UtensilInfo(
            id: Self.id, name: name, fileExtension: "png", createdAt: Date(timeIntervalSince1970: 1_700_000_000),
            width: 640, height: 480, bytes: 14, original: original.path,
            thumbnail: root.appendingPathComponent("thumbnails/\(Self.id).jpeg").path, category: "Kitchen")
        utensils = [utensil] + more.map { [utensil] name in
            UtensilInfo(
                id: UUID().uuidString, name: name, fileExtension: "jpg", createdAt: utensil.createdAt, width: 1, height: 1, bytes: 1,
                original: utensil.original, thumbnail: utensil.thumbnail)
        }
        var users = WebUsersFile()
        users.set(Self.user, password: Self.password, cost: 4)
        try Data(users.text.utf8).write(to: URL(fileURLWithPath: usersFile))
        _ = chmod(usersFile, 0o600)
    }

    func remove() { try? FileManager.default.removeItem(at: root) }

    func answer<Reply>(_ call: ControlCall<Reply>, webUser: String?) async -> Result<Reply, ControlError> {
        let reply: ControlReply =
            switch call.request {
            case .list(let options): page(options)
            case .show(let id, _) where utensils.contains(where: { $0.id == id.uppercased() }):
                .success(utensils.first(where: { $0.id == id.uppercased() })!, for: .show)
            case .show: .failure(.notFound, "No utensil has that id; `utensilctl list` shows them.")
            case .categories: .success([CategoryInfo(name: "Kitchen", count: 1)], for: .categories)
            // Deleting answers the utensil as the trash then holds it; the trash holds the
            // utensils whose name begins with "Trashed".
            case .delete(let id, _) where utensils.contains(where: { $0.id == id.uppercased() }):
                .success(utensils.first(where: { $0.id == id.uppercased() })!, for: .delete)
            case .trash: .success(utensils.filter { $0.name.hasPrefix("Trashed") }, for: .trash)
            case .status:
                .success(
                    StatusInfo(
                        version: "test", pid: 1, uptimeSeconds: 0, inbox: inbox, rejectedDir: root.path, stateDir: root.path,
                        utensils: 1, queued: 0, inFlight: 0, ingested: 1, rejected: 0, lastError: nil, watching: "inotify",
                        inboxMissing: false),
                    for: .status)
            default: .failure(.badRequest, "This test backend answers reads only.")
            }
        return reply.result(as: Reply.self)
    }

    /// Pages of `limit`, the cursor being the index the next page starts at.
    private func page(_ options: ListOptions) -> ControlReply {
        let start = options.after.flatMap { Int($0) } ?? 0
        let end = min(utensils.count, start + (options.limit ?? 50))
        let page = start < end ? Array(utensils[start..<end]) : []
        return .success(UtensilPage(utensils: page, next: end < utensils.count ? String(end) : nil), for: .list)
    }

    func followEvents() -> EventFollower {
        EventFollower(live: FollowerQueue(limit: 16)) { _ in .events([]) }
    }

    func readiness() async -> Readiness { readinessNow }
    func thumbnailPath(id: String) -> String { root.appendingPathComponent("thumbnails/\(id).jpeg").path }
    func previewPath(id: String) -> String { root.appendingPathComponent("previews/\(id).jpeg").path }
    var inbox: String { root.appendingPathComponent("inbox").path }

    /// Its file in `root`, as the local folder keeps it.
    /// Where `rendition` of utensil `id`, whose original is of type `fileExtension`, is kept.
    func file(_ rendition: Rendition, of id: UUID, fileExtension: String) -> URL {
        let name = "\(id.uuidString).\(rendition.fileExtension(original: fileExtension))"
        return root.appendingPathComponent("\(StateLayout.folderName(of: rendition))/\(name)")
    }

    func renditionInfo(_ rendition: Rendition, of id: UUID, fileExtension: String) async throws -> StoredRendition? {
        let path = file(rendition, of: id, fileExtension: fileExtension).path
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              attributes[.type] as? FileAttributeType == .typeRegular, let size = attributes[.size] as? Int
        else { return nil }
        let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        return StoredRendition(size: Int64(size), version: "\(size)-\(modified)")
    }

    func readRendition(_ rendition: Rendition, of id: UUID, fileExtension: String, range: Range<Int64>) async throws -> [UInt8] {
        let bytes = try [UInt8](Data(contentsOf: file(rendition, of: id, fileExtension: fileExtension)))
        let start = Int(min(range.lowerBound, Int64(bytes.count))), end = Int(min(range.upperBound, Int64(bytes.count)))
        return Array(bytes[start..<end])
    }

    func createUpload(fileName: String, category: String?, uploader: String) throws(UploadRefused) -> any UploadedFile {
        throw UploadRefused("This test backend takes no uploads.")
    }

    var maxFileBytes: Int { 1 << 20 }
    var usersFile: String { root.appendingPathComponent("web-users").path }
}

/// The gallery's real router (``GalleryServer/makeRouter()``, every route and middleware the
/// daemon serves) driven by HummingbirdTesting's in-process client.
struct Gallery {
    let backend: MemoryBackend
    let server: GalleryServer

    init(readiness: Readiness = Readiness(catalog: nil, storage: nil), name: String = "Spoon", more: [String] = []) throws {
        backend = try MemoryBackend(readiness: readiness, name: name, more: more)
        var logger = Logger(label: "utensil-web-tests")
        logger.logLevel = .critical
        server = GalleryServer(
            listen: .tcp(host: "127.0.0.1", port: 8180), backend: backend,
            metrics: GalleryMetrics(factory: NOOPMetricsHandler.instance, contentType: "text/plain; version=0.0.4") {
                "utensild_up 1\n"
            },
            logger: logger)
    }

    /// Runs `body` with a client whose requests carry `host` as their Host (authority).
    func test(host: String = "localhost", _ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        server.passwordChecks.start()
        let app = Application(responder: Rehosted(inner: server.makeRouter().buildResponder(), host: host))
        do {
            try await app.test(.router, body)
        } catch {
            await server.passwordChecks.shutdown()
            backend.remove()
            throw error
        }
        await server.passwordChecks.shutdown()
        backend.remove()
    }
}

/// Sets the request's authority: HummingbirdTesting's router client always sends `localhost`.
struct Rehosted<Inner: HTTPResponder>: HTTPResponder {
    let inner: Inner
    let host: String

    func respond(to request: Request, context: Inner.Context) async throws -> Response {
        var head = request.head
        head.authority = host
        return try await inner.respond(to: Request(head: head, body: request.body), context: context)
    }
}

extension TestResponse {
    var text: String { String(buffer: body) }

    /// The body as a JSON object.
    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any] ?? [:]
    }

    /// The `error.code` of a problem reply.
    var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }
}

extension HTTPField.Name {
    static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!
}

extension ByteBuffer {
    static func form(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }
}
