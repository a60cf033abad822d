import Logging
import ServiceLifecycle
import UtensilConfig
import UtensilWeb

/// The web gallery (``GalleryServer``), until its turn to stop comes. A listener that cannot
/// be opened is logged and the daemon goes on ingesting (the gallery is a window onto the
/// catalog, not its keeper): the group ignores this service's end. Not in the group at all
/// with `web_listen = ""`.
struct GalleryService: Service {
    let gallery: GalleryServer
    let listen: WebListen
    let logger: Logger

    func run() async {
        do {
            try await cancelWhenGracefulShutdown {
                try await gallery.run { address in logger.notice("The web gallery listens on \(address)") }
            }
        } catch is CancellationError {
            // Graceful shutdown.
        } catch {
            logger.error("The web gallery could not listen on \(listen): \(error); change web_listen, or set it to \"\" to turn the gallery off")
        }
    }
}
