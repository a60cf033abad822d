import HummingbirdCore
import NIOCore

/// Closes a connection whose request body stops arriving: between a request head and its
/// end, each part must follow the one before within `timeout`. (Before a head, Hummingbird's
/// idle time-out applies; after the end, a reply such as the event stream may take as long as
/// it likes.)
final class BodyTimeout: ChannelInboundHandler, RemovableChannelHandler {
    /// Hummingbird's request part (NIOHTTPTypes' `HTTPRequestPart`).
    typealias InboundIn = HTTP1Channel.Value.InboundPart
    typealias InboundOut = HTTP1Channel.Value.InboundPart

    let timeout: TimeAmount
    private var pending: Scheduled<Void>?

    init(timeout: TimeAmount) { self.timeout = timeout }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        pending?.cancel()
        pending = nil
        switch unwrapInboundIn(data) {
        case .head, .body:
            let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            pending = context.eventLoop.scheduleTask(in: timeout) { loopBound.value.close(promise: nil) }
        case .end:
            break
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
