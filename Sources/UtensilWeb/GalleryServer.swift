import Hummingbird
import Logging
import UtensilConfig

/// The web gallery's HTTP server (Hummingbird): pages, the JSON API, thumbnails and
/// originals. One more service of the daemon; it reads and changes the catalog only through
/// its ``GalleryBackend``.
public struct GalleryServer: Sendable {
    let listen: WebListen
    /// A listening socket systemd passed in (`FileDescriptorName=web`); it replaces the
    /// address of `listen` (which still turns the gallery off when `.off`).
    let activatedDescriptor: Int32?
    let backend: any GalleryBackend
    let logger: Logger
    let access: Access
    /// `web_hosts`: Host names answered besides the listen address and the loopback names.
    let extraHosts: [String]
    /// bcrypt's own threads (``PasswordChecks``), started and stopped by ``run(onListening:)``.
    let passwordChecks = PasswordChecks()

    public init(
        listen: WebListen, extraHosts: [String] = [], activatedDescriptor: Int32? = nil, backend: any GalleryBackend,
        logger: Logger
    ) {
        self.listen = listen
        self.extraHosts = extraHosts
        self.activatedDescriptor = activatedDescriptor
        self.backend = backend
        self.logger = logger
        access = Access(sessions: Sessions(), usersFile: backend.usersFile)
    }

    /// The router, separate from the listener so that tests can drive it directly.
    func makeRouter() -> Router<GalleryRequestContext> {
        let router = Router(context: GalleryRequestContext.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: SecurityHeaders())
        router.add(middleware: HostCheck(listen: listen, extraHosts: extraHosts))
        APIRoutes(backend: backend).register(on: router)
        PageRoutes(backend: backend, access: access).register(on: router)
        ChangeRoutes(backend: backend, access: access, throttle: LoginThrottle(), passwordChecks: passwordChecks).register(on: router)
        FileRoutes(backend: backend, files: StoredFile(fileIO: FileIO())).register(on: router)
        return router
    }

    /// Serves until cancelled (or until graceful shutdown); `onListening` gets the address.
    public func run(onListening: @escaping @Sendable (String) -> Void = { _ in }) async throws {
        if listen == .off { return }
        passwordChecks.start()
        do {
            try await serve(onListening: onListening)
        } catch {
            await passwordChecks.shutdown()
            throw error
        }
        await passwordChecks.shutdown()
    }

    private func serve(onListening: @escaping @Sendable (String) -> Void) async throws {
        // Hummingbird logs each request at info, and the cancellation that ends it on shutdown
        // as errors; what matters (a listener that cannot be opened) is thrown to the daemon.
        var quiet = logger
        quiet.logLevel = .critical
        if let activatedDescriptor {
            return try await ActivatedListener.serve(
                descriptor: activatedDescriptor, router: makeRouter(), logger: quiet, onListening: onListening)
        }
        let address: BindAddress
        switch listen {
        case .off: return
        case .tcp(let host, let port): address = .hostname(host, port: port)
        case .unix(let path): address = .unixDomainSocket(path: path)
        }
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
