import Foundation
import PostgresNIO
import UtensilCatalogModel

/// The columns of `utensils` a ``UtensilRecord`` is read from, in order, and how a row becomes
/// one. The derived keys (`sort_key`, `category_key`) are stored, not read: the record
/// computes them from its name and category.
enum UtensilColumns {
    static let list = """
        id, name, name_key, search_key, extension, created_at, width, height, bytes, sha256, source_key, \
        name_claim, content_claim, category, added_by, updated_at, trashed_at, host
        """

    /// ``list`` with each column qualified by the table alias `u` (for joins).
    static let qualified = list.split(separator: ",").map { "u." + $0.trimmingCharacters(in: .whitespaces) }
        .joined(separator: ", ")

    static func record(_ row: PostgresRandomAccessRow) throws -> UtensilRecord {
        UtensilRecord(
            id: try row[0].decode(UUID.self), name: try row[1].decode(String.self), nameKey: try row[2].decode(String.self),
            searchKey: try row[3].decode(String.self), fileExtension: try row[4].decode(String.self),
            createdAt: try row[5].decode(Date.self), width: try row[6].decode(Int.self), height: try row[7].decode(Int.self),
            bytes: try row[8].decode(Int.self), sha256: try row[9].decode(String.self),
            sourceKey: try row[10].decode(String?.self), nameClaim: try row[11].decode(String?.self),
            contentClaim: try row[12].decode(String?.self), category: try row[13].decode(String?.self),
            addedBy: try row[14].decode(String?.self), updatedAt: try row[15].decode(Date?.self),
            trashedAt: try row[16].decode(Date?.self), host: try row[17].decode(String?.self))
    }
}

extension UtensilColumns {
    /// How many columns ``list`` names (the index of a column selected after them).
    static let count = list.split(separator: ",").count
}
