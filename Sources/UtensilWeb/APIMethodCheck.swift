import Hummingbird

/// Answers `405 Method Not Allowed`, with an `Allow` header, to a request for a path of the
/// API's OpenAPI document with a method the document does not give it (`DELETE
/// /api/v1/utensils`); other unknown paths stay `404`.
struct APIMethodCheck<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        guard path.hasPrefix("/api/"), let allowed = OpenAPIDocument.allowedMethods(forPath: path),
              !allowed.contains(request.method.rawValue)
        else { return try await next(request, context) }
        let allow = allowed.sorted().joined(separator: ", ")
        var problem = WebProblem(.methodNotAllowed, .badRequest, "\(path) answers only \(allow); see /api/v1/openapi.json.")
        problem.headers[.allow] = allow
        throw problem
    }
}
