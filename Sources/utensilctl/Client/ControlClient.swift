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

    /// Sends `call`'s request and returns the payload of its successful reply.
    func send<Reply>(_ call: ControlCall<Reply>) throws(ClientError) -> Reply {
        try connection.send(call.request)
        return try next(call.decodeReply)
    }

    /// Subscribes to `events` (first those after `since`, a `seq`) and calls `handle` for each
    /// one until the daemon closes.
    func follow(since: Int64? = nil, _ handle: (EventInfo) throws(ClientError) -> Void) throws(ClientError) {
        _ = try send(.events(since: since))
        connection.waitIndefinitely()
        while true {
            try handle(try next(LineFraming.decodeEvent, endOfStream: "the event stream ended; the daemon may be stopping"))
        }
    }

    /// Asks for a backup; calls `progress` for each progress line and returns the summary.
    func backup(_ destination: BackupDestination, progress: (BackupProgressInfo) -> Void) throws(ClientError) -> BackupInfo {
        try connection.send(ControlCall.backup(destination).request)
        while true {
            switch try next(LineFraming.decodeBackupLine, endOfStream: "before the backup finished; its journal says why") {
            case .progress(let line): progress(line)
            case .finished(let summary): return summary
            }
        }
    }

    /// The next reply line, read by `decode`; an error reply becomes `ClientError.failed`.
    private func next<Payload>(
        _ decode: ([UInt8]) throws -> Result<Payload, ControlError>, endOfStream: String = "without a reply"
    ) throws(ClientError) -> Payload {
        guard let line = try connection.readLine() else {
            throw .connectionLost(socket: socketPath, reason: endOfStream)
        }
        let result: Result<Payload, ControlError>
        do {
            result = try decode(line)
        } catch {
            if let failure = Self.decodeFailureLeniently(line) { throw .failed(failure) }
            throw .unreadableReply(LineFraming.describe(error))
        }
        switch result {
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
