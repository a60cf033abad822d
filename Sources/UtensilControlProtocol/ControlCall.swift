import Foundation

/// A request together with the type of its successful reply: `client.send(.show(id))`
/// returns a `UtensilInfo`, `client.send(.status)` a `StatusInfo`. Each command's file under
/// `Commands/` has the constructors that tie its `ControlRequest` case to its payload type;
/// there is no other way to build one.
public struct ControlCall<Reply: ControlReplyPayload>: Sendable, Equatable {
    public let request: ControlRequest

    init(_ request: ControlRequest) {
        self.request = request
    }

    /// The reply to this call, read from one line (with or without its line ending).
    public func decodeReply(_ line: some DataProtocol) throws -> Result<Reply, ControlError> {
        try LineFraming.decodeReply(Reply.self, key: request.command.replyKey, from: line)
    }
}
