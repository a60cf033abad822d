import Glibc
import Hummingbird
import UtensilCore

/// Serves a file of the state folder (a thumbnail, a preview or an original) streamed from disk in
/// chunks — never read whole into memory — with an `ETag` from its inode, size and
/// modification time (a replaced photo gets a new one) and long-lived caching.
struct StoredFile: Sendable {
    let fileIO: FileIO

    /// `versioned`: the URL names the version (`?v=`), so the response may be cached for a
    /// year; otherwise the browser revalidates with the `ETag` each time (a cheap 304).
    func response(path: String, contentType: String, request: Request, context: some RequestContext, versioned: Bool)
        async throws -> Response
    {
        var status = stat()
        guard lstat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { throw WebProblem.notFound }
        let modified = Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)
        let etag = "\"\(String(status.st_ino, radix: 16))-\(String(status.st_size, radix: 16))-\(String(modified, radix: 16))\""
        var headers = HTTPFields()
        headers[.eTag] = etag
        headers[.cacheControl] = versioned ? "public, max-age=31536000, immutable" : "public, no-cache"
        if let match = request.headers[.ifNoneMatch], match.split(separator: ",").contains(where: {
            $0.trimmingCharacters(in: .whitespaces) == etag || $0.trimmingCharacters(in: .whitespaces) == "*"
        }) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = contentType
        let body = try await fileIO.loadFile(path: path, context: context)
        return Response(status: .ok, headers: headers, body: body)
    }

    /// The media type of an original, from its extension.
    static func mediaType(ofExtension fileExtension: String) -> String {
        PhotoExtension(rawValue: fileExtension)?.mediaType ?? "application/octet-stream"
    }
}
