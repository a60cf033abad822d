import Hummingbird
import Logging
import UtensilConfig

/// The web gallery's HTTP server (Hummingbird): pages, the JSON API, thumbnails and
/// originals. One more service of the daemon; it reads and changes the catalog only through
/// its ``GalleryBackend``.
public struct GalleryServer: Sendable {
    let listen: WebListen
    let backend: any GalleryBackend
    let logger: Logger
    let access: Access

    public init(listen: WebListen, backend: any GalleryBackend, logger: Logger) {
        self.listen = listen
        self.backend = backend
        self.logger = logger
        access = Access(sessions: Sessions(), usersFile: backend.usersFile)
    }

    /// The router, separate from the listener so that tests can drive it directly.
    func makeRouter() -> Router<GalleryRequestContext> {
        let router = Router(context: GalleryRequestContext.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: SecurityHeaders())
        APIRoutes(backend: backend).register(on: router)
        PageRoutes(backend: backend, access: access).register(on: router)
        ChangeRoutes(backend: backend, access: access, throttle: LoginThrottle()).register(on: router)
        FileRoutes(backend: backend, files: StoredFile(fileIO: FileIO())).register(on: router)
        return router
    }

    /// Serves until cancelled (or until graceful shutdown); `onListening` gets the address.
    public func run(onListening: @escaping @Sendable (String) -> Void = { _ in }) async throws {
        let address: BindAddress
        switch listen {
        case .off: return
        case .tcp(let host, let port): address = .hostname(host, port: port)
        case .unix(let path): address = .unixDomainSocket(path: path)
        }
        var quiet = logger
        quiet.logLevel = max(logger.logLevel, .notice)  // Hummingbird's per-request lines are info.
        let app = Application(
            router: makeRouter(), configuration: .init(address: address, serverName: "utensild"),
            onServerRunning: { [listen] channel in
                switch listen {
                case .tcp(let host, let port):
                    let shownHost = host.contains(":") ? "[\(host)]" : host
                    onListening("http://\(shownHost):\(channel.localAddress?.port ?? port)/")
                default:
                    onListening(listen.description)
                }
            },
            logger: quiet)
        try await app.run()
    }
}
