import Logging
import UtensilCatalogModel
import UtensilStorage
import UtensilStore

/// The start-up sequence shared by the daemon and `utensild --oneshot`, in its one order:
/// make the state folder private, open the catalog (migrating it), arm the decoder crash guard
/// (which shows what an earlier process was decoding when it died), bring the state folder back
/// to the invariant (counting those decodes as crashes). The caller holds the ``StateLock`` first.
public enum StartUp {
    /// Runs the sequence and returns the process's one ``UtensilStore``, ready for ingests
    /// (with `near_duplicates` on, it starts loading the fingerprints it holds, in the background):
    /// the daemon hands this same instance to every front door (and reloads its settings).
    /// `catalog` and `storage` are the backends the configuration chose, open (the caller runs
    /// what they need, such as a PostgreSQL pool of connections); this target opens none.
    public static func prepare(
        settings: IngestSettings, catalog: any CatalogBackend, storage: any RenditionStorage, logger: Logger,
        faults: FaultInjection = .fromEnvironment()
    ) throws -> UtensilStore {
        StatePermissions.tighten(settings, sqliteCatalog: false, logger: logger)
        try DecoderCrashGuard.install(slotsFile: settings.decodingSlots)
        let store = UtensilStore(settings: settings, catalog: catalog, storage: storage, logger: logger, faults: faults)
        _ = try store.reconcile()
        if settings.nearDuplicates != .off { store.holdFingerprints() }
        return store
    }
}
