import Foundation
import UtensilCatalogModel
import UtensilLookalike

/// Look-alikes: the utensil a new photo resembles, the pairs that look alike, and the pairs
/// marked "not a copy".
extension UtensilStore {
    /// Starts loading the catalog's fingerprints into memory in the background (the daemon,
    /// at start); from when it completes, ``nearDuplicate(of:excluding:)`` scans them instead
    /// of the catalog's block indexes. The task ends when the load has completed or failed.
    @discardableResult
    public func holdFingerprints() -> Task<Void, Never> {
        heldFingerprints.startLoading(from: catalog, logger: logger)
    }

    /// The utensil outside the trash, other than `excluded`, whose photo's fingerprint is
    /// nearest `fingerprint` within ``Fingerprint/copyThreshold``; nil when there is none.
    /// Through the held fingerprints once ``holdFingerprints()`` has loaded them; before, or
    /// when they cannot answer, through the catalog's look-up.
    package func nearDuplicate(of fingerprint: Int64, excluding excluded: UUID?) throws(CatalogError) -> NearDuplicate? {
        let catalog = catalog
        let held = heldFingerprints
        let matches = try CatalogAwait.run { () async throws(CatalogError) in
            if let matches = await held.lookalikes(of: fingerprint, within: Fingerprint.copyThreshold, limit: 2, in: catalog) {
                return matches
            }
            return try await catalog.lookalikes(of: fingerprint, within: Fingerprint.copyThreshold, limit: 2)
        }
        return matches.first { $0.utensil.id != excluded }
            .map { NearDuplicate(id: $0.utensil.id, name: $0.utensil.name, distance: $0.distance) }
    }

    /// The pairs of utensils that look alike, newest copy first (see
    /// ``CatalogLookalikes/nearDuplicatePairs(limit:)``).
    public func nearDuplicatePairs(limit: Int) async throws(StoreError) -> [NearDuplicatePair] {
        try await fromCatalog { () async throws(CatalogError) in try await catalog.nearDuplicatePairs(limit: limit) }
    }

    /// Marks two utensils "not a copy" of each other: they are no longer listed as a pair.
    /// - Throws: ``StoreError/catalog(_:)`` with ``CatalogError/notFound`` when either does not exist.
    public func markNotACopy(_ id: UUID, _ other: UUID) async throws(StoreError) {
        try await fromCatalog { () async throws(CatalogError) in try await catalog.markNotACopy(id, other) }
    }
}
