/// The order of a listing of utensils, as `list --sort`, the protocol's `"sort"` and the
/// catalog all name it.
public enum ListSort: String, Codable, Sendable, CaseIterable {
    /// By name, case and accents not deciding ("éclair" sits with "Eclair"); ties by the exact name.
    case name
    /// Oldest first.
    case created
    /// Newest first (the default).
    case newestFirst = "-created"
}
