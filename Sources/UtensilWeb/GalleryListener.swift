import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix

/// The gallery's listening socket, bounded (``WebLimits``): Hummingbird's own HTTP/1 channel
/// and the router, fed from NIO's bootstrap so that every connection passes the
/// ``ConnectionLimiter`` and the ``DescriptorReserve`` before a byte is read, idles at most
/// `idleSeconds` between requests and sends a body within its deadline (``BodyTimeout``). The socket is bound here, or is one
/// systemd passed in (`utensild-web.socket`, so the service keeps `PrivateNetwork=yes`).
enum GalleryListener {
    enum Endpoint: Sendable {
        case tcp(host: String, port: Int)
        case unix(path: String)
        /// A bound, listening socket from systemd.
        case descriptor(Int32)
    }

    /// Serves until cancelled; `onListening` gets the bound address.
    static func serve(
        _ endpoint: Endpoint, router: Router<GalleryRequestContext>, limits: WebLimits, reserve: DescriptorReserve,
        logger: Logger, quietLogger: Logger, onListening: @Sendable (SocketAddress?) -> Void
    ) async throws {
        let responder = router.buildResponder()
        let configuration = HTTP1Channel.Configuration(
            additionalChannelHandlers: [
                BodyTimeout(deadline: .seconds(limits.bodySeconds), uploadDeadline: .seconds(limits.uploads.bodySeconds)),
            ],
            idleTimeout: .seconds(limits.idleSeconds))
        let http = HTTP1Channel(responder: { request, responseWriter, channel in
            let context = GalleryRequestContext(source: .init(channel: channel, logger: quietLogger))
            var response: Response
            do {
                response = try await responder.respond(to: request, context: context)
            } catch {
                quietLogger.debug("The web gallery failed a request: \(error)")
                response = Response(status: .internalServerError)
            }
            response.headers[.server] = "utensild"
            try await responseWriter.write(response: response.head, body: response.body)
        }, configuration: configuration)
        let limiter = ConnectionLimiter(limits: limits, logger: logger)
        let initializer: @Sendable (any Channel) -> EventLoopFuture<HTTP1Channel.Value?> = { channel in
            guard reserve.allows("new connections"), limiter.admit(channel) else {
                channel.close(promise: nil)
                return channel.eventLoop.makeSucceededFuture(nil)
            }
            // First in the pipeline, before HTTP's own handlers (which hold a client's closing
            // back while a response is in flight), so that a page that was left is noticed.
            do {
                try channel.pipeline.syncOperations.addHandler(PeerGone())
            } catch {
                return channel.eventLoop.makeFailedFuture(error)
            }
            return http.setup(channel: channel, logger: quietLogger).map { Optional($0) }
        }
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
        let server: NIOAsyncChannel<HTTP1Channel.Value?, Never> = switch endpoint {
        case .tcp(let host, let port):
            try await bootstrap.bind(host: host, port: port, childChannelInitializer: initializer)
        case .unix(let path):
            try await bootstrap.bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true, childChannelInitializer: initializer)
        case .descriptor(let descriptor):
            try await bootstrap.bind(NIOBSDSocket.Handle(descriptor), childChannelInitializer: initializer)
        }
        onListening(server.channel.localAddress)
        try await withThrowingDiscardingTaskGroup { group in
            try await server.executeThenClose { connections in
                for try await connection in connections {
                    guard let connection else { continue }
                    group.addTask { await http.handle(value: connection, logger: quietLogger) }
                }
            }
        }
    }
}
