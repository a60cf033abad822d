import Foundation
import UtensilCatalogModel
import UtensilControlProtocol

/// This host's heartbeat: writes its ``HostHeartbeat`` (name, version, since when it runs,
/// its queue and what it ingested and rejected since start, from the scheduler's counters,
/// as `status` shows them) into the catalog's host registry, for `utensilctl hosts` on any
/// host sharing the catalog. ``HostHeartbeatService`` beats it periodically; `hosts` beats it
/// once more before listing, so that this host's own row is current.
struct HostHeart: Sendable {
    /// This host's name (`host_name`).
    let name: String
    let startedAt: Date
    let registry: any CatalogHostRegistry
    let scheduler: DropScheduler

    /// Writes this host's heartbeat as of now; with `stopping`, marks it stopped.
    func beat(stopping: Bool = false) async throws(CatalogError) {
        let counters = await scheduler.counters
        let now = Date()
        try await registry.beat(HostHeartbeat(
            name: name, version: UtensildVersion.current, startedAt: startedAt, lastSeen: now,
            stoppedAt: stopping ? now : nil, queued: counters.queued, ingested: counters.ingested,
            rejected: counters.rejected))
    }
}
