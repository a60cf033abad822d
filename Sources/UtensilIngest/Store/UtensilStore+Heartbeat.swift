import UtensilCatalogModel

/// This host's heartbeat in the catalog's host registry, for a caller on a thread of its own.
extension UtensilStore {
    /// Writes `heartbeat` as this host's row (see ``CatalogHostRegistry/beat(_:)``), blocking
    /// the calling thread until the catalog has answered: a busy SQLite catalog holds it for
    /// its busy time-out, PostgreSQL for as long as a connection takes.
    public func beat(_ heartbeat: HostHeartbeat) throws(StoreError) {
        try catalogCall { [catalog] () async throws(CatalogError) in try await catalog.beat(heartbeat) }
    }
}
