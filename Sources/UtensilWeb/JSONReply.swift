import Foundation
import Hummingbird
import UtensilControlProtocol

/// JSON responses, encoded exactly as `utensilctl --json` prints them (`LineFraming`).
enum JSONReply {
    static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try LineFraming.encode(value))))
    }

    /// Whether `request` asks for JSON (`Accept: application/json`), as gallery.js does when it
    /// sends a page's form itself instead of letting the browser leave the page.
    static func isWanted(by request: Request) -> Bool {
        request.headers[values: .accept].contains { $0.lowercased().contains("application/json") }
    }

    /// The answer to a change made by a page's form: the utensil as it now is (the JSON of
    /// `utensilctl --json`) when the request asks for JSON, else a redirect to `location`, so
    /// the same form works with and without JavaScript.
    static func change(_ request: Request, _ utensil: UtensilInfo, otherwise location: String) throws -> Response {
        isWanted(by: request) ? try response(utensil) : Response.redirect(to: location, type: .normal)
    }
}

extension Result where Failure == ControlError {
    /// The payload, or the reply's error as a ``WebProblem``.
    func payload() throws(WebProblem) -> Success {
        switch self {
        case .success(let payload): return payload
        case .failure(let error): throw WebProblem(error)
        }
    }
}
