import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOPosix

/// Serves the gallery on a listening socket systemd passed in (`utensild-web.socket`), so
/// the service keeps `PrivateNetwork=yes`. Hummingbird's `Application` only binds addresses
/// itself, so this feeds Hummingbird's own HTTP/1 channel from NIO's bootstrap over the
/// existing descriptor, and answers with the same router.
enum ActivatedListener {
    static func serve(
        descriptor: Int32, router: Router<GalleryRequestContext>, logger: Logger, onListening: @Sendable (String) -> Void
    ) async throws {
        let responder = router.buildResponder()
        let http = HTTP1Channel(responder: { request, responseWriter, channel in
            let context = GalleryRequestContext(source: .init(channel: channel, logger: logger))
            var response: Response
            do {
                response = try await responder.respond(to: request, context: context)
            } catch {
                logger.debug("The web gallery failed a request: \(error)")
                response = Response(status: .internalServerError)
            }
            response.headers[.server] = "utensild"
            try await responseWriter.write(response: response.head, body: response.body)
        })
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
            .bind(NIOBSDSocket.Handle(descriptor)) { channel in http.setup(channel: channel, logger: logger) }
        onListening(server.channel.localAddress.map { "\($0) (from systemd)" } ?? "the socket from systemd")
        try await withThrowingDiscardingTaskGroup { group in
            try await server.executeThenClose { connections in
                for try await connection in connections {
                    group.addTask { await http.handle(value: connection, logger: logger) }
                }
            }
        }
    }
}
