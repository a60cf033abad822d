import Foundation
import Synchronization
import UtensilCatalogModel
import UtensilLookalike

/// The fingerprints of the catalog's utensils held in memory (8 bytes each), so that a
/// look-up of near neighbours is one scan of an array (``FingerprintScan``) instead of the
/// catalog's block indexes. What the scan finds is only a candidate: each is confirmed by
/// asking the catalog for the utensils with exactly that fingerprint, so a stale entry (a
/// utensil trashed, purged or given another photo since) never makes a wrong match; the
/// catalog stays the truth.
public final class FingerprintMemory: Sendable {
    private let fingerprints = Mutex<[UInt64]>([])

    public init() {}

    /// Replaces what is held with every fingerprint of the catalog outside the trash (but
    /// ``PhotoFingerprint/nonePossible``), read `pageSize` at a time; returns how many.
    @discardableResult
    public func load(from catalog: some CatalogLookalikes, pageSize: Int = 10_000) async throws(CatalogError) -> Int {
        var loaded: [UInt64] = []
        var last: UUID?
        while true {
            let page = try await catalog.fingerprints(after: last, limit: pageSize)
            loaded.reserveCapacity(loaded.count + page.count)
            for entry in page where entry.fingerprint != PhotoFingerprint.nonePossible {
                loaded.append(UInt64(bitPattern: entry.fingerprint))
            }
            guard page.count == pageSize, let end = page.last else { break }
            last = end.id
        }
        let count = loaded.count
        fingerprints.withLock { $0 = loaded }
        return count
    }

    /// Holds `fingerprint` too (a utensil just committed); not ``PhotoFingerprint/nonePossible``.
    public func add(_ fingerprint: Int64) {
        guard fingerprint != PhotoFingerprint.nonePossible else { return }
        fingerprints.withLock { $0.append(UInt64(bitPattern: fingerprint)) }
    }

    /// How many fingerprints are held (a deleted utensil's stay until the next load).
    public var count: Int { fingerprints.withLock { $0.count } }

    /// The fingerprints held within `maximumDistance` bits of `fingerprint`, each once.
    public func candidates(of fingerprint: Int64, within maximumDistance: Int) -> Set<Int64> {
        let query = UInt64(bitPattern: fingerprint)
        return fingerprints.withLock { held in
            held.withUnsafeBufferPointer { all in
                Set(FingerprintScan.matches(in: all, of: query, within: maximumDistance).map { Int64(bitPattern: all[$0]) })
            }
        }
    }

    /// The utensils not in the trash whose fingerprint is within `maximumDistance` bits of
    /// `fingerprint`, nearest first (ties oldest first), at most `limit`, as
    /// ``CatalogLookalikes/lookalikes(of:within:limit:)`` answers for the fingerprints held:
    /// the scan's candidates, each confirmed by `catalog` (an exact, indexed look-up).
    public func lookalikes(of fingerprint: Int64, within maximumDistance: Int, limit: Int, in catalog: some CatalogLookalikes)
        async throws(CatalogError) -> [LookalikeMatch]
    {
        guard maximumDistance >= 0, limit > 0 else { return [] }
        var matches: [LookalikeMatch] = []
        for candidate in candidates(of: fingerprint, within: maximumDistance) {
            let distance = FingerprintBlocks.distance(candidate, fingerprint)
            for found in try await catalog.lookalikes(of: candidate, within: 0, limit: limit) {
                matches.append(LookalikeMatch(utensil: found.utensil, distance: distance))
            }
        }
        matches.sort {
            ($0.distance, $0.utensil.createdAt, $0.utensil.id.uuidString) < ($1.distance, $1.utensil.createdAt, $1.utensil.id.uuidString)
        }
        return Array(matches.prefix(limit))
    }
}
