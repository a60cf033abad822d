import Hummingbird
import UtensilControlProtocol

/// `/thumbnails/{id}.jpeg`, `/previews/{id}.jpeg` and `/originals/{id}.{ext}`: the id is checked strictly
/// (``UtensilID``) and the original's path comes from its catalog row, so no request can
/// name any other file. An original is saved under the utensil's name (``DownloadName``).
struct FileRoutes: Sendable {
    let backend: any GalleryBackend
    let files: StoredFile

    func register(on router: Router<GalleryRequestContext>) {
        router.get("/thumbnails/:file") { request, context in
            guard let file = context.parameters.get("file"), let (id, fileExtension) = UtensilID.split(fileName: file),
                  fileExtension == "jpeg"
            else { throw WebProblem.notFound }
            return try await files.response(
                path: backend.thumbnailPath(id: id.text), contentType: "image/jpeg", request: request, context: context,
                versioned: request.uri.query?.hasPrefix("v=") == true)
        }
        router.get("/previews/:file") { request, context in
            guard let file = context.parameters.get("file"), let (id, fileExtension) = UtensilID.split(fileName: file),
                  fileExtension == "jpeg"
            else { throw WebProblem.notFound }
            return try await files.response(
                path: backend.previewPath(id: id.text), contentType: "image/jpeg", request: request, context: context,
                versioned: request.uri.query?.hasPrefix("v=") == true)
        }
        router.get("/originals/:file") { request, context in
            guard let file = context.parameters.get("file"), let (id, fileExtension) = UtensilID.split(fileName: file)
            else { throw WebProblem.notFound }
            let utensil = try await GalleryReads(backend: backend).utensil(id)
            guard utensil.fileExtension == fileExtension else { throw WebProblem.notFound }
            var response = try await files.response(
                path: utensil.original, contentType: StoredFile.mediaType(ofExtension: fileExtension), request: request,
                context: context, versioned: request.uri.query?.hasPrefix("v=") == true)
            response.headers[.contentDisposition] = DownloadName.contentDisposition(name: utensil.name, fileExtension: fileExtension)
            return response
        }
    }
}
