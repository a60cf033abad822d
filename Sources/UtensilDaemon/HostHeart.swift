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
    /// The catalog's registry of heartbeats; nil for a backend that keeps none.
    let registry: (any CatalogHostRegistry)?
    let scheduler: DropScheduler

    init(name: String, startedAt: Date, catalog: any CatalogBackend, scheduler: DropScheduler) {
        self.name = name
        self.startedAt = startedAt
        registry = catalog as? any CatalogHostRegistry
        self.scheduler = scheduler
    }

    /// Every host's latest heartbeat (see ``CatalogHostRegistry/hosts()``).
    func hosts() async throws(CatalogError) -> [HostHeartbeat] {
        try await registryOrRefusal().hosts()
    }

    private func registryOrRefusal() throws(CatalogError) -> any CatalogHostRegistry {
        guard let registry else {
            throw CatalogError.unavailable(code: -1, detail: "this catalog backend keeps no host heartbeats")
        }
        return registry
    }

    /// Writes this host's heartbeat as of now; with `stopping`, marks it stopped.
    func beat(stopping: Bool = false) async throws(CatalogError) {
        let counters = await scheduler.counters
        let now = Date()
        try await registryOrRefusal().beat(HostHeartbeat(
            name: name, version: UtensildVersion.current, startedAt: startedAt, lastSeen: now,
            stoppedAt: stopping ? now : nil, queued: counters.queued, ingested: counters.ingested,
            rejected: counters.rejected))
    }
}
