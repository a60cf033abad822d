import Foundation
import UtensilCatalogModel
import UtensilControlProtocol

/// This host's heartbeat: writes its ``HostHeartbeat`` (name, version and the catalog schema it
/// knows, since when it runs,
/// its queue and what it ingested and rejected since start, from the scheduler's counters,
/// as `status` shows them) into the catalog's host registry, for `utensilctl hosts` on any
/// host sharing the catalog. ``HostHeartbeatService`` beats it periodically; `hosts` beats it
/// once more before listing, so that this host's own row is current. The registry is the
/// store (``UtensilStore``), through which every row is written.
struct HostHeart: Sendable {
    /// This host's name (`host_name`).
    let name: String
    let startedAt: Date
    /// The store in the daemon; a registry of its own in tests.
    let registry: any CatalogHostRegistry
    let scheduler: DropScheduler

    /// Writes this host's heartbeat as of now; with `stopping`, marks it stopped.
    func beat(stopping: Bool = false) async throws(CatalogError) {
        try await registry.beat(heartbeat(stopping: stopping))
    }

    private func heartbeat(stopping: Bool) async -> HostHeartbeat {
        let counters = await scheduler.counters
        let now = Date()
        return HostHeartbeat(
            name: name, version: UtensildVersion.current, schema: registry.knownSchema, startedAt: startedAt, lastSeen: now,
            stoppedAt: stopping ? now : nil, queued: counters.queued, ingested: counters.ingested,
            rejected: counters.rejected)
    }
}
