import Logging
import ServiceLifecycle
import UtensilControlServer

/// The control socket (``ControlServer``): it answers until everything that changes state
/// has stopped. A socket that fails is logged and the daemon goes on ingesting (the group
/// ignores this service's end).
struct ControlSocketService: Service {
    let server: ControlServer
    let path: String
    let logger: Logger

    func run() async {
        do {
            try await server.run()
        } catch is CancellationError {
            // Shut down.
        } catch {
            logger.error("The control socket \(path) failed: \(error)")
        }
    }
}
