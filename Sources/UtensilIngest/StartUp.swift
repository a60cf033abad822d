import Logging
import UtensilCatalog
import UtensilCatalogModel

/// The start-up sequence shared by the daemon and `utensild --oneshot`, in its one order:
/// make the state folder private, open the catalog (migrating it), arm the decoder crash guard
/// (which shows what an earlier process was decoding when it died), bring the state folder back
/// to the invariant (counting those decodes as crashes). The caller holds the ``StateLock`` first.
public enum StartUp {
    /// Runs the sequence and returns the process's one ``UtensilStore``, ready for ingests:
    /// the daemon hands this same instance to every front door (and reloads its settings).
    /// `catalog` is the catalog already open elsewhere (PostgreSQL, whose pool of connections
    /// the caller runs); nil opens the SQLite ``Catalog`` in the state folder, which is named
    /// here and nowhere else in the daemon.
    public static func prepare(
        settings: IngestSettings, catalog: (any CatalogBackend)? = nil, logger: Logger,
        faults: FaultInjection = .fromEnvironment()
    ) throws -> UtensilStore {
        StatePermissions.tighten(settings, sqliteCatalog: catalog == nil, logger: logger)
        let catalog: any CatalogBackend = if let catalog { catalog } else { try Catalog(path: settings.catalogPath) }
        try DecoderCrashGuard.install(slotsFile: settings.decodingSlots)
        let store = UtensilStore(settings: settings, catalog: catalog, logger: logger, faults: faults)
        _ = try store.reconcile()
        return store
    }
}
