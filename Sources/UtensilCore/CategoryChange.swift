/// What renaming or deleting a category did: the catalog's answer (`CatalogCategoryChange`)
/// and, as it is, what `category-rename` and `category-delete` reply (and the `category` event says).
public struct CategoryChange: Codable, Sendable, Equatable {
    /// The category as it was spelled.
    public var from: String
    /// The category its utensils are in now (as it is spelled: an existing one's spelling after
    /// a merge); nil after a delete (JSON `null`, always written).
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

    enum CodingKeys: String, CodingKey { case from, to, moved, merged, count }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(from, forKey: .from)
        try container.encode(to, forKey: .to)
        try container.encode(moved, forKey: .moved)
        try container.encode(merged, forKey: .merged)
        try container.encode(count, forKey: .count)
    }
}
