import UtensilCatalogModel

/// The SQLite catalog is a ``CatalogBackend``: the store and the ingest engine use it only
/// through that protocol.
extension SQLiteCatalog: CatalogBackend {}
