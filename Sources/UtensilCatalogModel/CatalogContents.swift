import Foundation

/// A whole catalog as plain values: what a backend without a SQLite file of its own hands to
/// a ``CatalogSnapshotWriter`` to write a backup's `utensils.sqlite`.
public struct CatalogContents: Sendable, Equatable {
    /// Every utensil, the trash too, in id order.
    public var utensils: [UtensilRecord]
    /// Every favorite mark.
    public var favorites: [CatalogFavorite]

    public init(utensils: [UtensilRecord], favorites: [CatalogFavorite]) {
        self.utensils = utensils
        self.favorites = favorites
    }
}

/// One user's mark on one utensil.
public struct CatalogFavorite: Sendable, Equatable {
    public var user: String
    public var utensilID: UUID

    public init(user: String, utensilID: UUID) {
        self.user = user
        self.utensilID = utensilID
    }
}

/// Writes ``CatalogContents`` as a new SQLite catalog file (the SQLite backend's
/// `SQLiteSnapshotWriter`): how a backend that does not touch SQLite itself satisfies
/// ``CatalogSnapshot/writeSQLite(to:)``.
public protocol CatalogSnapshotWriter: Sendable {
    /// Writes `contents` as a new SQLite catalog at `path` (a file that does not exist), in
    /// rollback-journal mode, made durable.
    func writeSQLite(_ contents: CatalogContents, to path: String) throws(CatalogError)
}
