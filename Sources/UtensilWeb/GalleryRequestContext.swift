import Hummingbird

/// Hummingbird's request context plus the client's address (for slowing sign-in attempts).
struct GalleryRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The client's IP address; nil on a Unix socket.
    let remoteAddress: String?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress?.ipAddress
    }

    /// Request bodies the gallery collects whole (forms) stay small; uploads stream instead.
    var maxUploadSize: Int { 64 * 1024 }
}
