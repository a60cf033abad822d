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
    /// Connections in all and per address, idle and body time-outs.
    let limits: WebLimits
    /// The daemon's metrics: `GET /metrics` and the request counts (nil: neither).
    let metrics: GalleryMetrics?
    /// bcrypt's own threads (``PasswordChecks``), started and stopped by ``run(onListening:)``.
    let passwordChecks = PasswordChecks()
    /// The descriptors kept free of connections and uploads (``WebLimits/descriptorsKeptFree``).
    let descriptorReserve: DescriptorReserve

    public init(
        listen: WebListen, extraHosts: [String] = [], limits: WebLimits = .current, activatedDescriptor: Int32? = nil,
        backend: any GalleryBackend, metrics: GalleryMetrics? = nil, logger: Logger
    ) {
        self.metrics = metrics
        self.listen = listen
        self.extraHosts = extraHosts
        self.limits = limits
        self.activatedDescriptor = activatedDescriptor
        self.backend = backend
        self.logger = logger
        descriptorReserve = DescriptorReserve(kept: limits.descriptorsKeptFree, logger: logger)
        access = Access(sessions: Sessions(), usersFile: TrustedUsersFile(path: backend.usersFile, logger: logger))
    }

    /// The router, separate from the listener so that tests can drive it directly.
    func makeRouter() -> Router<GalleryRequestContext> {
        let router = Router(context: GalleryRequestContext.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: SecurityHeaders(access: access))
        router.add(middleware: HostCheck(
            listen: listen, boundHost: activatedDescriptor.flatMap(BoundHost.of(descriptor:)), extraHosts: extraHosts))
        // Before every route: a middleware applies to the routes added after it.
        if let metrics {
            router.add(middleware: RequestMetrics(factory: metrics.factory))
            MetricsRoutes(metrics: metrics).register(on: router)
        }
        HealthRoutes(backend: backend).register(on: router)
        router.add(middleware: APIMethodCheck())
        APIRoutes(backend: backend, access: access, eventStreams: EventStreamSlots(limits: limits)).register(on: router)
        PageRoutes(backend: backend, access: access).register(on: router)
        AppRoutes().register(on: router)
        let throttle = LoginThrottle()
        ChangeRoutes(
            backend: backend, access: access, throttle: throttle, passwordChecks: passwordChecks,
            uploads: UploadSlots(limits: limits.uploads), reserve: descriptorReserve
        ).register(on: router)
        AccountRoutes(access: access, throttle: throttle, passwordChecks: passwordChecks).register(on: router)
        FileRoutes(backend: backend, files: StoredFile(backend: backend)).register(on: router)
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
        let endpoint: GalleryListener.Endpoint
        if let activatedDescriptor {
            endpoint = .descriptor(activatedDescriptor)
        } else {
            switch listen {
            case .off: return
            case .tcp(let host, let port): endpoint = .tcp(host: host, port: port)
            case .unix(let path): endpoint = .unix(path: path)
            }
        }
        try await GalleryListener.serve(
            endpoint, router: makeRouter(), limits: limits, reserve: descriptorReserve, logger: logger, quietLogger: quiet
        ) { [listen, activatedDescriptor] address in
            if activatedDescriptor != nil {
                onListening(address.map { "\($0) (from systemd)" } ?? "the socket from systemd")
            } else if case .tcp(let host, let port) = listen {
                let shownHost = host.contains(":") ? "[\(host)]" : host
                onListening("http://\(shownHost):\(address?.port ?? port)/")
            } else {
                onListening(listen.description)
            }
        }
    }
}
