import Hummingbird
import NIOCore

/// Hummingbird's request context plus the client's address (for slowing sign-in attempts and
/// counting event streams) and its connection.
struct GalleryRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The client's IP address; nil on a Unix socket.
    let remoteAddress: String?
    /// The connection the request came on (an event stream closes a reader that fell behind).
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress?.ipAddress
        channel = source.channel
    }

    /// Request bodies the gallery collects whole (forms) stay small; uploads stream instead.
    var maxUploadSize: Int { 64 * 1024 }
}
