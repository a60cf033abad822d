import HummingbirdCore
import NIOCore

/// Closes a connection whose request body has not arrived whole by its deadline: from a
/// request head, the body must end within `deadline` (`uploadDeadline` for an upload),
/// however many bytes it sends meanwhile, so a body trickled a byte at a time is cut like a
/// silent one. (Before a head, Hummingbird's idle time-out applies; after the end, a reply
/// such as the event stream may take as long as it likes.)
final class BodyTimeout: ChannelInboundHandler, RemovableChannelHandler {
    /// Hummingbird's request part (NIOHTTPTypes' `HTTPRequestPart`).
    typealias InboundIn = HTTP1Channel.Value.InboundPart
    typealias InboundOut = HTTP1Channel.Value.InboundPart

    /// The path whose bodies get `uploadDeadline`.
    static let uploadPath = "/api/v1/uploads"

    let deadline: TimeAmount
    let uploadDeadline: TimeAmount
    private var pending: Scheduled<Void>?

    init(deadline: TimeAmount, uploadDeadline: TimeAmount) {
        self.deadline = deadline
        self.uploadDeadline = uploadDeadline
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            pending?.cancel()
            let path = head.path.map { $0.prefix { $0 != "?" } }
            let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            pending = context.eventLoop.scheduleTask(in: path == Self.uploadPath[...] ? uploadDeadline : deadline) {
                loopBound.value.close(promise: nil)
            }
        case .body:
            break
        case .end:
            pending?.cancel()
            pending = nil
        }
        context.fireChannelRead(data)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        pending?.cancel()
        pending = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        pending?.cancel()
        pending = nil
        context.fireChannelInactive()
    }
}

extension NIOAsyncChannel {
    /// The generic parameter `Inbound`, named from outside (NIOHTTPTypes is not imported here).
    typealias InboundPart = Inbound
}
