import Hummingbird
import UtensilControlProtocol

/// The JSON API for scripts: the same requests and the same JSON as `utensilctl --json`.
struct APIRoutes: Sendable {
    let backend: any GalleryBackend
    let access: Access
    let eventStreams: EventStreamSlots

    func register(on router: Router<GalleryRequestContext>) {
        router.get("/api/v1/utensils") { request, _ in
            let query = try ListQuery(query: request.uri.query)
            let user = access.user(request)
            if query.favorites && user == nil { throw Access.signInForFavorites }
            return try JSONReply.response(try await backend.answer(query.call, webUser: user).payload())
        }
        router.get("/api/v1/utensils/:id") { request, context in
            try JSONReply.response(try await utensil(context.parameters.get("id"), for: access.user(request)))
        }
        router.get("/api/v1/categories") { _, _ in
            try JSONReply.response(try await backend.answer(.categories, webUser: nil).payload())
        }
        router.get("/api/v1/status") { _, _ in
            try JSONReply.response(try await backend.answer(.status, webUser: nil).payload())
        }
        router.get("/api/v1/events") { request, context in
            guard let ticket = eventStreams.take(from: context.remoteAddress) else { throw Self.tooManyEventStreams(eventStreams.limits) }
            return EventStream(
                follower: backend.followEvents(), since: EventStream.resumePoint(request), connection: context.channel,
                ticket: ticket
            ).response()
        }
        router.get("/api/v1/openapi.json") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "application/json; charset=utf-8"
            headers[.cacheControl] = "no-cache"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: OpenAPIDocument.json)))
        }
    }

    /// The answer past ``WebLimits/eventStreams`` or ``WebLimits/eventStreamsPerAddress``.
    static func tooManyEventStreams(_ limits: WebLimits) -> WebProblem {
        var problem = WebProblem(
            .serviceUnavailable, .busy,
            "The gallery is serving as many live event streams as it allows (\(limits.eventStreamsPerAddress) from one address, \(limits.eventStreams) in all); close a gallery tab or try again in a minute.")
        problem.headers[.retryAfter] = "60"
        return problem
    }

    /// The utensil a path segment names, strictly by id, as `user` (nil: a visitor) sees it.
    func utensil(_ segment: String?, for user: String? = nil) async throws -> UtensilInfo {
        guard let segment, let id = UtensilID(segment) else { throw WebProblem.notFound }
        return try await GalleryReads(backend: backend).utensil(id, for: user)
    }
}

/// Reads shared by the API, the pages and the file routes.
struct GalleryReads: Sendable {
    let backend: any GalleryBackend

    /// The utensil `id`; for a signed-in `user`, with whether it is their favorite.
    func utensil(_ id: UtensilID, for user: String? = nil) async throws -> UtensilInfo {
        try await backend.answer(.show(id.text), webUser: user).payload()
    }
}
