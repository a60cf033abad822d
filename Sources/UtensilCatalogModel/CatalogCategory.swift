/// A category and how many utensils it has.
public struct CatalogCategory: Sendable, Equatable {
    public var name: String
    public var count: Int

    public init(name: String, count: Int) {
        self.name = name
        self.count = count
    }
}

/// What renaming or deleting a category did.
public struct CatalogCategoryChange: Sendable, Equatable {
    /// The category as it was spelled.
    public var from: String
    /// The category its utensils are in now (as it is spelled: an existing one's spelling after
    /// a merge); nil after a delete.
    public var to: String?
    /// Utensils (not in the trash) that changed category.
    public var moved: Int
    /// The new name was an existing category, which the utensils joined.
    public var merged: Bool
    /// Utensils (not in the trash) in `to` now; 0 after a delete.
    public var count: Int

    public init(from: String, to: String?, moved: Int, merged: Bool, count: Int) {
        self.from = from
        self.to = to
        self.moved = moved
        self.merged = merged
        self.count = count
    }
}
