import Logging

/// Metadata as flat `key = text` pairs, sorted by key, for formats without nesting.
///
/// A dictionary becomes one pair per leaf with the keys joined by `.` (`["file": ["path": p]]`
/// → `file.path = p`); an array stays one value, written `[a, b]` (nested dictionaries inside
/// it as `[k: v]`).
enum MetadataFlattening {
    static func pairs(_ metadata: Logger.Metadata) -> [(key: String, value: String)] {
        var pairs: [(key: String, value: String)] = []
        for (key, value) in metadata { append(value, at: key, to: &pairs) }
        return pairs.sorted { $0.key < $1.key }
    }

    private static func append(
        _ value: Logger.MetadataValue, at key: String, to pairs: inout [(key: String, value: String)]
    ) {
        if case .dictionary(let nested) = value, !nested.isEmpty {
            for (subkey, subvalue) in nested { append(subvalue, at: key + "." + subkey, to: &pairs) }
        } else {
            pairs.append((key, text(value)))
        }
    }

    /// One value as text: strings as they are, collections in brackets with sorted dictionary keys.
    static func text(_ value: Logger.MetadataValue) -> String {
        switch value {
        case .string(let string): string
        case .stringConvertible(let convertible): convertible.description
        case .array(let elements): "[" + elements.map(text).joined(separator: ", ") + "]"
        case .dictionary(let nested) where nested.isEmpty: "[:]"
        case .dictionary(let nested):
            "[" + nested.sorted { $0.key < $1.key }.map { "\($0.key): \(text($0.value))" }
                .joined(separator: ", ") + "]"
        }
    }
}
