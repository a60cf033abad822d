import Foundation
import PostgresNIO
import UtensilCatalogModel

/// The columns of `utensils` a ``UtensilRecord`` is read from, in order, and how a row becomes
/// one. The derived keys (`sort_key`, `category_key`) are stored, not read: the record
/// computes them from its name and category.
enum UtensilColumns {
    static let list = """
        id, name, name_key, search_key, extension, created_at, width, height, bytes, sha256, source_key, \
        name_claim, content_claim, category, added_by, updated_at, trashed_at, host, fingerprint, \
        near_duplicate_of, near_duplicate_name, near_duplicate_distance
        """

    /// ``list`` with each column qualified by the table alias `u` (for joins).
    static let qualified = list.split(separator: ",").map { "u." + $0.trimmingCharacters(in: .whitespaces) }
        .joined(separator: ", ")

    /// ``list`` with each column qualified by the table alias `alias`.
    static func qualified(_ alias: String) -> String {
        list.split(separator: ",").map { alias + "." + $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ", ")
    }

    /// The record in `row`'s columns from `first` on (``list``'s, in order).
    static func record(_ row: PostgresRandomAccessRow, from first: Int = 0) throws -> UtensilRecord {
        let f = first
        return UtensilRecord(
            id: try row[f].decode(UUID.self), name: try row[f + 1].decode(String.self),
            nameKey: try row[f + 2].decode(String.self), searchKey: try row[f + 3].decode(String.self),
            fileExtension: try row[f + 4].decode(String.self), createdAt: try row[f + 5].decode(Date.self),
            width: try row[f + 6].decode(Int.self), height: try row[f + 7].decode(Int.self),
            bytes: try row[f + 8].decode(Int.self), sha256: try row[f + 9].decode(String.self),
            sourceKey: try row[f + 10].decode(String?.self), nameClaim: try row[f + 11].decode(String?.self),
            contentClaim: try row[f + 12].decode(String?.self), category: try row[f + 13].decode(String?.self),
            addedBy: try row[f + 14].decode(String?.self), updatedAt: try row[f + 15].decode(Date?.self),
            trashedAt: try row[f + 16].decode(Date?.self), host: try row[f + 17].decode(String?.self),
            fingerprint: try row[f + 18].decode(Int64?.self), nearDuplicate: try nearDuplicate(row, from: f + 19))
    }

    /// The near duplicate in the three columns from `first` on, or nil.
    private static func nearDuplicate(_ row: PostgresRandomAccessRow, from first: Int) throws -> NearDuplicate? {
        guard let id = try row[first].decode(UUID?.self), let name = try row[first + 1].decode(String?.self),
            let distance = try row[first + 2].decode(Int?.self)
        else { return nil }
        return NearDuplicate(id: id, name: name, distance: distance)
    }
}

extension UtensilColumns {
    /// How many columns ``list`` names (the index of a column selected after them).
    static let count = list.split(separator: ",").count
}
