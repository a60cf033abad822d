import Logging
import ServiceLifecycle
import UtensilCatalogModel

/// Beats this host's heartbeat (``HostHeart``) at start, every ``HostHeartbeat/interval``
/// (10 s) while it runs, and a last time, marked stopped, when its turn to stop comes (after
/// the ingest workers, so that the last counts are final). Another host shows it as gone
/// once it has stopped, or when its last beat is older than ``HostHeartbeat/goneAfter``
/// (30 s: killed, hung, or cut off from the catalog). A beat that fails is logged once, and
/// again when beats succeed again; the daemon goes on regardless.
struct HostHeartbeatService: Service {
    let heart: HostHeart
    let logger: Logger

    func run() async {
        // Whether the latest beat failed, so that a failure is logged once.
        var failing = await cancelWhenGracefulShutdown {
            var failing = false
            while true {
                await beat(failing: &failing)
                do { try await Task.sleep(for: HostHeartbeat.interval) } catch { return failing }
            }
        }
        await beat(stopping: true, failing: &failing)
    }

    private func beat(stopping: Bool = false, failing: inout Bool) async {
        do {
            try await heart.beat(stopping: stopping)
            if failing { logger.notice("This host's heartbeat is written to the catalog again") }
            failing = false
        } catch {
            if !failing {
                logger.warning(
                    "Cannot write this host's heartbeat to the catalog (other hosts may list it as gone): \(error)")
            }
            failing = true
        }
    }
}
