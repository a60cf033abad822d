/// Where the hosts sharing a catalog keep their heartbeats (``HostHeartbeat``), for
/// `utensilctl hosts`. Every ``CatalogBackend`` is one (SQLite's `SQLiteCatalog` with its table
/// `hosts`; PostgreSQL's `PostgresCatalog` with its table `hosts`, the same columns: `name`,
/// `version`, `schema`, `started_at`, `last_seen`, `stopped_at`, `queued`, `ingested`,
/// `rejected`).
///
/// What every implementation must keep: a beat replaces the whole row of its host (or adds
/// it), atomically and durably; rows of other hosts are never touched; rows are never
/// removed (a host that went away stays listed as gone).
public protocol CatalogHostRegistry: Sendable {
    /// The newest schema of this catalog that this utensild knows: how many of its migrations
    /// it knows (numbered per kind of catalog: SQLite's and PostgreSQL's differ). A host
    /// writes it in its heartbeat, so that an older host sharing the catalog learns that a
    /// newer one migrated it.
    var knownSchema: Int { get }
    /// Writes this host's heartbeat, replacing its previous one.
    func beat(_ heartbeat: HostHeartbeat) async throws(CatalogError)
    /// Every host's latest heartbeat, in name order.
    func hosts() async throws(CatalogError) -> [HostHeartbeat]
}
