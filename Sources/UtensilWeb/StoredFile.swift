import Foundation
import Hummingbird
import NIOCore
import UtensilCore

/// Serves a stored rendition (a thumbnail, a preview or an original) by id, through the
/// backend's store — so the same routes serve any storage — streamed in chunks, never read
/// whole into memory, with an `ETag` from its version (a replaced photo gets a new one),
/// long-lived caching and single byte ranges (`Range: bytes=…`, a resumed download).
struct StoredFile: Sendable {
    let backend: any GalleryBackend

    /// `versioned`: the URL names the version (`?v=`), so the response may be cached for a
    /// year; otherwise the browser revalidates with the `ETag` each time (a cheap 304).
    func response(
        _ rendition: Rendition, of id: UUID, fileExtension: String, contentType: String, request: Request, versioned: Bool
    ) async throws -> Response {
        // A versioned URL's `v` is handed on: a thumbnail kept in memory for another is read again.
        let asked = versioned ? request.uri.query.flatMap { $0.split(separator: "&").first { $0.hasPrefix("v=") } }.map(String.init) : nil
        guard let stored = try await backend.storedRenditionInfo(rendition, of: id, fileExtension: fileExtension, askedAs: asked) else {
            throw WebProblem.notFound
        }
        let etag = stored.version.map { "\"\($0)\"" }
        var headers = HTTPFields()
        headers[.eTag] = etag
        headers[.cacheControl] = versioned ? "public, max-age=31536000, immutable" : "public, no-cache"
        headers[.acceptRanges] = "bytes"
        if let etag, let match = request.headers[.ifNoneMatch], Self.matches(match, etag) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = contentType
        var status = HTTPResponse.Status.ok
        var range = 0..<stored.size
        // A range is honoured only for the version it was asked of (`If-Range`, when sent).
        if let asked = request.headers[.range], request.headers[.ifRange].map({ $0 == etag }) ?? true {
            switch ByteRange(asked, size: stored.size) {
            case .whole: break
            case .part(let part):
                status = .partialContent
                range = part
                headers[.contentRange] = "bytes \(part.lowerBound)-\(part.upperBound - 1)/\(stored.size)"
            case .unsatisfiable:
                headers[.contentRange] = "bytes */\(stored.size)"
                headers[.contentType] = nil
                return Response(status: .rangeNotSatisfiable, headers: headers)
            }
        }
        let body = ResponseBody(contentLength: Int(range.count)) { [backend, range] writer in
            var left = Int64(range.count)
            try await backend.streamRendition(rendition, of: id, fileExtension: fileExtension, range: range) { bytes in
                // Longer than announced: replaced meanwhile by a larger one; cut the response off.
                guard Int64(bytes.count) <= left else { throw WebProblem.notFound }
                try await writer.write(ByteBuffer(bytes: bytes))
                left -= Int64(bytes.count)
            }
            // Shorter: replaced meanwhile by a smaller one; cut the response off too.
            guard left == 0 else { throw WebProblem.notFound }
            try await writer.finish(nil)
        }
        return Response(status: status, headers: headers, body: body)
    }

    /// Whether an `If-None-Match` list names `etag` (or is `*`), compared weakly as RFC 9110
    /// says: `W/"x"` matches `"x"` (a proxy may have weakened the tag it cached).
    static func matches(_ list: String, _ etag: String) -> Bool {
        list.split(separator: ",").contains { tag in
            let tag = tag.trimmingCharacters(in: .whitespaces)
            return tag == "*" || (tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag) == etag
        }
    }

    /// The media type of an original, from its extension.
    static func mediaType(ofExtension fileExtension: String) -> String {
        PhotoExtension(rawValue: fileExtension)?.mediaType ?? "application/octet-stream"
    }
}

/// A `Range` header's one byte range, read against a rendition of `size` bytes: several
/// ranges, another unit or a malformed header is served whole, as RFC 9110 allows.
enum ByteRange: Equatable {
    case whole
    case part(Range<Int64>)
    case unsatisfiable

    init(_ header: String, size: Int64) {
        let prefix = "bytes="
        guard header.hasPrefix(prefix) else { self = .whole; return }
        let spec = header.dropFirst(prefix.count).trimmingCharacters(in: .whitespaces)
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard !spec.contains(","), parts.count == 2 else { self = .whole; return }
        let first = parts[0].trimmingCharacters(in: .whitespaces), last = parts[1].trimmingCharacters(in: .whitespaces)
        guard first.allSatisfy(\.isASCIIDigit), last.allSatisfy(\.isASCIIDigit), !(first.isEmpty && last.isEmpty) else {
            self = .whole
            return
        }
        if first.isEmpty {  // The last N bytes.
            guard let count = Int64(last) else { self = .whole; return }
            self = count == 0 || size == 0 ? .unsatisfiable : .part(max(size - count, 0)..<size)
            return
        }
        guard let start = Int64(first) else { self = .whole; return }
        let end = last.isEmpty ? size - 1 : min(Int64(last) ?? .max, size - 1)
        if !last.isEmpty, let asked = Int64(last), asked < start { self = .whole; return }
        self = start < size ? .part(start..<(end + 1)) : .unsatisfiable
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
