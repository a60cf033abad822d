import NIOCore

/// Notices a client that has gone: it closed its side of the connection (with remote
/// half-closure allowed, NIO reports that as an event, not as a close) or the connection
/// closed. An event stream writes only every few seconds, so without this a page that was
/// left would keep its stream, and its slot, until a write failed.
final class PeerGone: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private var promise: EventLoopPromise<Void>?
    /// Succeeds once the client has gone.
    private(set) var gone: EventLoopFuture<Void>?

    func handlerAdded(context: ChannelHandlerContext) {
        let promise = context.eventLoop.makePromise(of: Void.self)
        self.promise = promise
        gone = promise.futureResult
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed { done() }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        done()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) { done() }

    private func done() {
        promise?.succeed()
        promise = nil
    }

    /// Succeeds once the client of `channel` has gone (at once when the handler is missing).
    static func gone(of channel: any Channel) -> EventLoopFuture<Void> {
        channel.pipeline.handler(type: PeerGone.self).flatMap { handler in
            handler.gone ?? channel.eventLoop.makeSucceededVoidFuture()
        }
    }
}
