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
