/// The value types of a listing (``CatalogBackend/list(search:category:addedBy:favoriteOf:sort:limit:after:)``).

/// One page of a listing and the cursor of the next one.
public struct CatalogPage: Sendable, Equatable {
    public var utensils: [UtensilRecord]
    /// Opaque; nil on the last page.
    public var next: String?

    public init(utensils: [UtensilRecord], next: String?) {
        self.utensils = utensils
        self.next = next
    }
}
