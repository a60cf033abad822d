import UtensilCatalogModel

/// The store is this host's way into the catalog's host registry: a heartbeat row is written
/// through it, like every other row (`HostHeart` beats through it; `hosts` reads through it).
extension UtensilStore: CatalogHostRegistry {
    /// The newest catalog schema this build knows (the catalog's ``CatalogHostRegistry/knownSchema``).
    public var knownSchema: Int { catalog.knownSchema }

    /// Writes `heartbeat` as this host's row (see ``CatalogHostRegistry/beat(_:)``).
    public func beat(_ heartbeat: HostHeartbeat) async throws(CatalogError) {
        try await catalog.beat(heartbeat)
    }

    /// Every host's latest heartbeat (see ``CatalogHostRegistry/hosts()``).
    public func hosts() async throws(CatalogError) -> [HostHeartbeat] {
        try await catalog.hosts()
    }
}
