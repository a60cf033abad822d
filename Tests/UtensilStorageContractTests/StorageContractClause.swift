import Testing

/// One promise of the rendition storage contract: what a test names it by, and the check of it
/// on a fresh storage (``RenditionStorageContract/clauses``).
struct StorageContractClause: Sendable, CustomTestStringConvertible {
    let description: String
    let check: @Sendable (OpenedStorage) async throws -> Void

    init(_ description: String, _ check: @escaping @Sendable (OpenedStorage) async throws -> Void) {
        self.description = description
        self.check = check
    }

    var testDescription: String { description }
}
