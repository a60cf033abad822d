/// The order of `list`; encoded as its raw value in `"sort"`.
public enum ListSort: String, Codable, Sendable, CaseIterable {
    /// By name, case-insensitively, A to Z.
    case name
    /// Oldest first.
    case created
    /// Newest first (the default).
    case newestFirst = "-created"
}
