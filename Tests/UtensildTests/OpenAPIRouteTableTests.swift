import Foundation
import Logging
import Testing
import UtensilControlProtocol
import UtensilCore
@testable import UtensilWeb

/// The OpenAPI document and the router describe the same API: every `/api/` route the
/// gallery registers is an operation of the document, and every operation is a route.
/// (What each route answers is checked against the document by `make openapi-test`.)
@Suite struct OpenAPIRouteTableTests {
    @Test func everyAPIRouteIsDocumentedAndEveryOperationIsARoute() {
        let server = GalleryServer(listen: .tcp(host: "127.0.0.1", port: 0), backend: RouteTableOnly(), logger: .init(label: "test"))
        let routes = Set(
            server.makeRouter().routes
                .filter { $0.path.description.hasPrefix("/api/") && $0.method != .head }
                .map { "\($0.method.rawValue) \(Self.template($0.path.description))" })
        let documented = Set(OpenAPIDocument.operations.flatMap { path, methods in methods.map { "\($0) \(path)" } })
        #expect(routes == documented, "routes only: \(routes.subtracting(documented)); document only: \(documented.subtracting(routes))")
        #expect(routes.count >= 7)
    }

    /// The document's list of extensions is the daemon's one list (``PhotoExtension``).
    @Test func theDocumentNamesEveryPhotoExtension() throws {
        let root = try #require(try JSONSerialization.jsonObject(with: Data(OpenAPIDocument.json.utf8)) as? [String: Any])
        let utensil = ((root["components"] as? [String: Any])?["schemas"] as? [String: Any])?["Utensil"] as? [String: Any]
        let extensionSchema = (utensil?["properties"] as? [String: Any])?["extension"] as? [String: Any]
        let documented = try #require(extensionSchema?["enum"] as? [String])
        #expect(documented == PhotoExtension.allCases.map(\.rawValue))
    }

    @Test func documentedPathsAnswerOtherMethodsWith405() {
        #expect(OpenAPIDocument.allowedMethods(forPath: "/api/v1/utensils") == ["GET", "HEAD"])
        #expect(OpenAPIDocument.allowedMethods(forPath: "/api/v1/utensils/0F2E") == ["GET", "HEAD"])
        #expect(OpenAPIDocument.allowedMethods(forPath: "/api/v1/uploads") == ["POST"])
        #expect(OpenAPIDocument.allowedMethods(forPath: "/api/v1/utensils//") == nil)
        #expect(OpenAPIDocument.allowedMethods(forPath: "/api/v1/nothing") == nil)
    }

    /// Hummingbird's `:id` as OpenAPI's `{id}`.
    static func template(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false)
            .map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }
            .joined(separator: "/")
    }
}

/// A backend for reading the router's route table: no route is ever served, so nothing here
/// is called.
private struct RouteTableOnly: GalleryBackend {
    func answer<Reply>(_ call: ControlCall<Reply>, webUser: String?) async -> Result<Reply, ControlError> {
        .failure(ControlError(.internal, "not served"))
    }
    func readiness() async -> Readiness { Readiness(catalog: nil, storage: nil) }
    func followEvents() -> EventFollower {
        let queue = FollowerQueue<EventInfo>(limit: 1)
        queue.finish()
        return EventFollower(live: queue) { _ in .events([]) }
    }
    func renditionInfo(_ rendition: Rendition, of id: UUID, fileExtension: String) async throws -> StoredRendition? { nil }
    func readRendition(_ rendition: Rendition, of id: UUID, fileExtension: String, range: Range<Int64>) async throws -> [UInt8] { [] }
    var inbox: String { "/nonexistent" }
    func createUpload(fileName: String, category: String?, uploader: String) throws(UploadRefused) -> any UploadedFile {
        throw UploadRefused("not served")
    }
    var maxFileBytes: Int { 0 }
    var usersFile: String { "/nonexistent" }
}
