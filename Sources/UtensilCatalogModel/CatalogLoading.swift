/// Loading a whole catalog at once: how `utensild restore` moves a backup's SQLite catalog
/// into the configured backend (PostgreSQL, say).
public protocol CatalogLoading: Sendable {
    /// Puts `contents` into this catalog, which must hold no utensil (the trash counts), in
    /// one transaction: afterwards it holds exactly those utensils (ids, names, dates,
    /// categories, trash, who added them, claims), favorites and decoder crashes, or, when
    /// this throws, nothing was changed. ``CatalogError/notEmpty(utensils:)`` when it
    /// already holds utensils, decided inside the transaction.
    func load(_ contents: CatalogContents) async throws(CatalogError)
}
