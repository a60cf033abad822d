/// One page of `list`: `{"utensils": [...], "next": CURSOR-or-null}`.
public struct UtensilPage: Codable, Sendable, Equatable {
    public var utensils: [UtensilInfo]
    /// Pass as `after` to get the next page; `nil` (JSON `null`, always written) on the last.
    public var next: String?

    public init(utensils: [UtensilInfo], next: String? = nil) {
        self.utensils = utensils
        self.next = next
    }

    enum CodingKeys: String, CodingKey { case utensils, next }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        utensils = try container.decode([UtensilInfo].self, forKey: .utensils)
        next = try container.decodeIfPresent(String.self, forKey: .next)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(utensils, forKey: .utensils)
        try container.encode(next, forKey: .next)
    }
}
