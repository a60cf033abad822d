import Foundation
import UtensilCatalogModel

/// A user's favorites: rows of their own, no files. A user is a name (``UserName``): the Unix
/// user of `utensilctl` and the web user of the gallery with the same name are one person.
extension UtensilStore {
    /// Marks (`favorite`) or unmarks a utensil not in the trash as `user`'s favorite; returns it.
    public func setFavorite(id: UUID, of user: String, _ favorite: Bool) async throws(StoreError) -> UtensilRecord {
        try await fromCatalog { () async throws(CatalogError) in try await catalog.setFavorite(id: id, of: user, favorite) }
    }

    /// Which of `ids` are `user`'s favorites.
    public func favorites(of user: String, among ids: [UUID]) async throws(StoreError) -> Set<UUID> {
        try await fromCatalog { () async throws(CatalogError) in try await catalog.favorites(of: user, among: ids) }
    }
}
