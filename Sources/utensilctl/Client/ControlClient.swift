import Foundation
import UtensilControlProtocol

/// Requests and their replies over one `SocketConnection`, with error replies turned into
/// `ClientError.failed`.
struct ControlClient {
    /// How long a reply may take; `events` waits for ever once subscribed.
    static let replyTimeoutSeconds = 30

    let socketPath: String
    private let connection: SocketConnection

    /// How long `check` may take: an integrity check reads the whole database.
    static let slowReplyTimeoutSeconds = 600

    init(socketPath: String, replyTimeoutSeconds: Int = Self.replyTimeoutSeconds) throws(ClientError) {
        self.socketPath = socketPath
        connection = try SocketConnection(path: socketPath, replyTimeoutSeconds: replyTimeoutSeconds)
    }

    /// Sends `request` and returns the payload of its successful reply.
    func send(_ request: ControlRequest) throws(ClientError) -> ControlPayload {
        try connection.send(request)
        return try nextPayload()
    }

    /// Subscribes to `events` and calls `handle` for each one until the daemon closes.
    func follow(_ handle: (EventInfo) throws(ClientError) -> Void) throws(ClientError) {
        guard case .subscribed = try send(.events) else {
            throw .unreadableReply("the daemon did not confirm the subscription")
        }
        connection.waitIndefinitely()
        while true {
            let payload = try nextPayload(endOfStream: "the event stream ended; the daemon may be stopping")
            guard case .event(let event) = payload else {
                throw .unreadableReply("expected an event, got \"\(payload.key)\"")
            }
            try handle(event)
        }
    }

    private func nextPayload(endOfStream: String = "without a reply") throws(ClientError) -> ControlPayload {
        guard let line = try connection.readLine() else {
            throw .connectionLost(socket: socketPath, reason: endOfStream)
        }
        let reply: ControlReply
        do {
            reply = try LineFraming.decode(ControlReply.self, from: line)
        } catch {
            if let failure = Self.decodeFailureLeniently(line) { throw .failed(failure) }
            throw .unreadableReply(LineFraming.describe(error))
        }
        switch reply.result {
        case .success(let payload): return payload
        case .failure(let error): throw .failed(error)
        }
    }

    /// An error reply from a daemon of another version can still carry a readable message.
    private static func decodeFailureLeniently(_ line: [UInt8]) -> ControlError? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
              object["ok"] as? Bool == false,
              let error = object["error"] as? [String: Any],
              let message = error["message"] as? String
        else { return nil }
        let code = (error["code"] as? String).flatMap(ControlErrorCode.init(rawValue:)) ?? .internal
        return ControlError(code, message)
    }
}
