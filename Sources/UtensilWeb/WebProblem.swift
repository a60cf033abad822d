import Foundation
import Hummingbird
import UtensilControlProtocol

/// A request the gallery refuses, with the status and one sentence saying what to do.
struct WebProblem: Error, HTTPResponseError {
    let status: HTTPResponse.Status
    let code: ControlErrorCode
    let message: String
    /// Headers the answer carries besides the JSON ones (`Allow` of a 405).
    var headers = HTTPFields()

    init(_ status: HTTPResponse.Status, _ code: ControlErrorCode, _ message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    static func badRequest(_ message: String) -> WebProblem { WebProblem(.badRequest, .badRequest, message) }

    static let notFound = WebProblem(.notFound, .notFound, "There is no such page or utensil; the gallery at / shows them all.")

    /// The HTTP form of a control error.
    init(_ error: ControlError) {
        let status: HTTPResponse.Status = switch error.code {
        case .notFound: .notFound
        case .invalidName, .badRequest, .unsupportedVersion: .badRequest
        case .duplicateName: .conflict
        case .permissionDenied: .forbidden
        case .requestTooLarge: .contentTooLarge
        case .busy: .serviceUnavailable
        case .internal: .internalServerError
        }
        self.init(status, error.code, Self.forTheGallery(error.message))
    }

    /// A control error's sentence as the gallery's users read it: the control socket's hints
    /// ("; `utensilctl list` shows them.") name a command they may not have, so the clause
    /// from the first quoted `utensilctl` on gives way to where the gallery shows the same.
    static func forTheGallery(_ message: String) -> String {
        guard let hint = message.range(of: "; `utensilctl") ?? message.range(of: ", `utensilctl") else { return message }
        return message[..<hint.lowerBound] + "; the gallery at / shows what there is."
    }

    /// For the API, files and a request asking for JSON (a form gallery.js sends) a JSON body,
    /// `{"error":{"code":…,"message":…}}`, as the control socket words errors; for pages a page for people (``ProblemPage``), with the header of
    /// every page for `user` (the signed-in user, or nil).
    func response(from request: Request, context: some RequestContext) throws -> Response {
        try response(from: request, context: context, user: nil)
    }

    func response(from request: Request, context: some RequestContext, user: String?) throws -> Response {
        if !request.uri.path.hasPrefix("/api/") && !request.uri.path.hasPrefix("/thumbnails/")
            && !request.uri.path.hasPrefix("/previews/") && !request.uri.path.hasPrefix("/originals/")
            && !JSONReply.isWanted(by: request)
        {
            var response = HTML.response(ProblemPage(problem: self, path: request.uri.path, user: user).render(), status: status)
            for field in headers { response.headers.append(field) }
            return response
        }
        let body = (try? LineFraming.encode(["error": ControlError(code, message)])) ?? Data(message.utf8)
        var headers = self.headers
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}
