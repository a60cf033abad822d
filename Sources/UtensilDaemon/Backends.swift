import Logging
import UtensilCatalog
import UtensilCatalogModel
import UtensilConfig
import UtensilIngest

/// What the one store runs on: where the rows are (the catalog), how the hosts sharing it hear
/// of each other's changes, and where the renditions are (the storage). The configuration
/// chooses each in one place: the executable's `Backends.open` for the daemon and `--oneshot`,
/// or ``local(_:logger:faults:)`` for what needs no server.
public struct Backends: Sendable {
    /// The rows behind the store.
    public let catalog: any CatalogBackend
    /// How this host and the others sharing ``catalog`` tell each other of their changes; nil
    /// for a catalog of one host.
    public let changeFeed: (any CatalogChangeFeed)?
    /// Where the utensils' originals, thumbnails and previews are kept.
    public let storage: any RenditionStorage

    /// Opens the backends for these settings (``local(_:logger:faults:)``, or those of a
    /// catalog server the caller runs).
    public typealias Opener = @Sendable (IngestSettings, Logger) throws -> Backends

    public init(catalog: any CatalogBackend, changeFeed: (any CatalogChangeFeed)?, storage: any RenditionStorage) {
        self.catalog = catalog
        self.changeFeed = changeFeed
        self.storage = storage
    }

    /// The SQLite catalog in `state_dir` (its file made private first) and the storage the
    /// configuration names (``storage(_:faults:)``).
    public static func local(_ settings: IngestSettings, logger: Logger, faults: FaultInjection = .fromEnvironment()) throws -> Backends {
        StatePermissions.tighten(settings, sqliteCatalog: true, logger: logger)
        return Backends(catalog: try Catalog(path: settings.catalogPath), changeFeed: nil, storage: storage(settings, faults: faults))
    }

    /// The storage of the renditions the configuration names: the local folder `state_dir`.
    public static func storage(_ settings: IngestSettings, faults: FaultInjection = .fromEnvironment()) -> any RenditionStorage {
        UtensilStore.localStorage(settings, faults: faults)
    }
}
