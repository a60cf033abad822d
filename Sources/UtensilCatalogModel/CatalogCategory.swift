import UtensilCore

/// A category and how many utensils it has.
public struct CatalogCategory: Sendable, Equatable {
    public var name: String
    public var count: Int

    public init(name: String, count: Int) {
        self.name = name
        self.count = count
    }
}

/// What renaming or deleting a category did: the same type the control protocol replies with.
public typealias CatalogCategoryChange = CategoryChange
