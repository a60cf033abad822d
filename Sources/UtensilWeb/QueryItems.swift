import Foundation

/// The `name=value` pairs of a query string or an `application/x-www-form-urlencoded` body,
/// decoded as browsers encode them (`+` is a space).
struct QueryItems: Sendable {
    private var items: [(name: String, value: String)] = []

    /// Fails on percent-encoding that does not decode to UTF-8.
    init?(_ text: String?) {
        guard let text, !text.isEmpty else { return }
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]), let value = Self.decode(parts.count > 1 ? parts[1] : "") else {
                return nil
            }
            items.append((name, value))
        }
    }

    /// The first value of `name`.
    subscript(_ name: String) -> String? { items.first { $0.name == name }?.value }

    private static func decode(_ part: Substring) -> String? {
        String(part).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
