import HTTPTypes
import Hummingbird

/// Headers on every response: a strict Content-Security-Policy (scripts and styles only from
/// the gallery's own static routes, never inline), no sniffing, no framing, no referrer to
/// other sites; and refusals (``WebProblem``) answered as JSON, or as a page with the header
/// of every page for the signed-in user (``Access``), with the same headers.
struct SecurityHeaders<Context: RequestContext>: RouterMiddleware {
    let access: Access

    static var contentSecurityPolicy: String {
        "default-src 'none'; img-src 'self' blob:; style-src 'self'; script-src 'self'; connect-src 'self'; manifest-src 'self'; worker-src 'self'; "
            + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let problem as WebProblem {
            response = try problem.response(from: request, context: context, user: access.user(request))
        } catch let error as HTTPError where error.status == .notFound {
            response = try WebProblem.notFound.response(from: request, context: context, user: access.user(request))
        }
        response.headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "same-origin"
        return response
    }
}
