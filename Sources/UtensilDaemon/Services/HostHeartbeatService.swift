import Logging
import ServiceLifecycle
import UtensilCatalogModel

/// Beats this host's heartbeat (``HostHeart``) at start, every ``interval`` while it runs
/// (on a catalog other hosts share), and a last time, marked stopped, when its turn to stop
/// comes (after the ingest workers, so that the last counts are final). Another host shows it
/// as gone once it has stopped, or when its last beat is older than
/// ``HostHeartbeat/goneAfter`` (30 s: killed, hung, or cut off from the catalog). A beat that
/// fails is logged once, and again when beats succeed again; the daemon goes on regardless.
struct HostHeartbeatService: Service {
    let heart: HostHeart
    /// How often a running host beats: ``HostHeartbeat/interval`` on a shared catalog; nil on
    /// a catalog no other host reads (see ``interval(sharesCatalog:)``).
    let interval: Duration?
    let logger: Logger

    /// How often a host beats while it runs. On a catalog other hosts share (PostgreSQL), every
    /// ``HostHeartbeat/interval``, so that they see it up, or gone once it stops beating. A
    /// SQLite catalog is this host's alone: its row is written at start, by every `hosts`
    /// (which beats before it lists) and at stop, and an idle daemon neither wakes nor writes
    /// to its disk for it.
    static func interval(sharesCatalog: Bool) -> Duration? {
        sharesCatalog ? HostHeartbeat.interval : nil
    }

    func run() async {
        // Whether the latest beat failed, so that a failure is logged once. A beat under way
        // when the shutdown comes is cancelled (a catalog that does not answer holds no stop).
        var failing = await cancelWhenGracefulShutdown {
            var failing = false
            await beat(failing: &failing)
            guard let interval else { return failing }
            while true {
                do { try await Task.sleep(for: interval) } catch { return failing }
                await beat(failing: &failing)
            }
        }
        if interval == nil { try? await gracefulShutdown() }
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
