import Foundation
import UtensilCatalogModel
import UtensilCore

/// Records as the store makes them: keys computed by the caller (``UtensilName``), claims
/// set when duplicates are refused.
enum ContractRecords {
    static func record(
        _ name: String, sha: String = UUID().uuidString, source: String? = UUID().uuidString,
        claimName: Bool = true, claimContent: Bool = true, category: String? = nil, addedBy: String? = nil,
        createdAt: Date = Date()
    ) -> UtensilRecord {
        let key = UtensilName.uniquenessKey(for: name)
        return UtensilRecord(
            id: UUID(), name: name, nameKey: key, searchKey: UtensilName.searchKey(for: name), fileExtension: "jpg",
            createdAt: createdAt, width: 4032, height: 3024, bytes: 1234, sha256: sha, sourceKey: source,
            nameClaim: claimName ? key : nil, contentClaim: claimContent ? sha : nil,
            category: category, addedBy: addedBy)
    }

    static func name(_ text: String) throws -> UtensilName {
        try UtensilName(validating: text)
    }
}

extension CatalogBackend {
    /// Inserts one record, throwing its refusal.
    func insertOne(_ record: UtensilRecord) async throws(CatalogError) {
        if let refusal = try await insert(batch: [record])[0] { throw refusal }
    }

    /// Every name of a listing, page after page.
    func names(search: String? = nil, sort: ListSort = .name, pageSize: Int = 2) async throws -> [String] {
        var names: [String] = []
        var cursor: String?
        repeat {
            let page = try await list(
                search: search, category: nil, addedBy: nil, favoriteOf: nil, sort: sort, limit: pageSize, after: cursor)
            names += page.utensils.map(\.name)
            cursor = page.next
        } while cursor != nil
        return names
    }
}
