import Foundation
import Hummingbird
import UtensilControlProtocol
import UtensilCore

/// `/thumbnails/{id}.jpeg`, `/squares/{id}.jpeg`, `/previews/{id}.jpeg` and
/// `/originals/{id}.{ext}`: the id is checked
/// strictly (``UtensilID``) and the rendition is asked of the store by id (an original's type
/// from its catalog row), so no request can name anything else. An original is saved under
/// the utensil's name (``DownloadName``).
struct FileRoutes: Sendable {
    let backend: any GalleryBackend
    let files: StoredFile

    func register(on router: Router<GalleryRequestContext>) {
        router.get("/thumbnails/:file") { request, context in try await jpeg(.thumbnail, request, context) }
        router.get("/previews/:file") { request, context in try await jpeg(.preview, request, context) }
        router.get("/squares/:file") { request, context in try await jpeg(.square, request, context) }
        router.get("/originals/:file") { request, context in
            guard let file = context.parameters.get("file"), let (id, fileExtension) = UtensilID.split(fileName: file),
                  let uuid = UUID(uuidString: id.text)
            else { throw WebProblem.notFound }
            let utensil = try await GalleryReads(backend: backend).utensil(id)
            guard utensil.fileExtension == fileExtension else { throw WebProblem.notFound }
            var response = try await files.response(
                .original, of: uuid, fileExtension: fileExtension, contentType: StoredFile.mediaType(ofExtension: fileExtension),
                request: request, versioned: request.uri.query?.hasPrefix("v=") == true)
            response.headers[.contentDisposition] = DownloadName.contentDisposition(name: utensil.name, fileExtension: fileExtension)
            return response
        }
    }

    /// A thumbnail, a preview or a grid square: `{id}.jpeg`. A utensil without its grid square
    /// yet (made before there were any, until `rethumb --missing`) gets its thumbnail there,
    /// revalidated each time rather than kept a year, so the square shows once it is made.
    private func jpeg(_ rendition: Rendition, _ request: Request, _ context: GalleryRequestContext) async throws -> Response {
        guard let file = context.parameters.get("file"), let (id, fileExtension) = UtensilID.split(fileName: file),
              fileExtension == "jpeg", let uuid = UUID(uuidString: id.text)
        else { throw WebProblem.notFound }
        var served = rendition
        if rendition == .square, try await backend.storedRenditionInfo(.square, of: uuid, fileExtension: "jpeg") == nil {
            served = .thumbnail
        }
        return try await files.response(
            served, of: uuid, fileExtension: "jpeg", contentType: "image/jpeg", request: request,
            versioned: served == rendition && request.uri.query?.hasPrefix("v=") == true)
    }
}
