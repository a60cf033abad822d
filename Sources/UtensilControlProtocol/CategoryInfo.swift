/// One category as `categories` shows it.
public struct CategoryInfo: Codable, Sendable, Equatable {
    /// The folder name the category came from.
    public var name: String
    /// Utensils in it (not counting the trash).
    public var count: Int

    public init(name: String, count: Int) {
        self.name = name
        self.count = count
    }
}
