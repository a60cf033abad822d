import Foundation

/// A utensil whose photo's fingerprint is near a query's.
public struct LookalikeMatch: Sendable, Equatable {
    public var utensil: UtensilRecord
    /// How many of the 64 fingerprint bits differ.
    public var distance: Int

    public init(utensil: UtensilRecord, distance: Int) {
        self.utensil = utensil
        self.distance = distance
    }
}

/// Utensils found by their photo's look-alike fingerprint (``UtensilRecord/fingerprint``).
public protocol CatalogLookalikes: Sendable {
    /// The utensils not in the trash whose fingerprint is within `maximumDistance` bits of
    /// `fingerprint`, nearest first (ties oldest first), at most `limit`. Fast at a million
    /// utensils for distances up to 19: see ``FingerprintBlocks``.
    func lookalikes(of fingerprint: Int64, within maximumDistance: Int, limit: Int) async throws(CatalogError) -> [LookalikeMatch]

    /// The utensils not in the trash that were ingested as look-alikes of another utensil
    /// still outside the trash (``UtensilRecord/nearDuplicate``), each with that utensil,
    /// newest first, at most `limit`; pairs marked "not a copy" are left out.
    func nearDuplicatePairs(limit: Int) async throws(CatalogError) -> [NearDuplicatePair]

    /// Marks the utensils `id` and `other` as "not a copy" of each other (in either order):
    /// ``nearDuplicatePairs(limit:)`` no longer shows them, and neither keeps the other as its
    /// ``UtensilRecord/nearDuplicate``. Marking a pair twice changes nothing.
    /// - Throws: ``CatalogError/notFound`` when either utensil does not exist.
    func markNotACopy(_ id: UUID, _ other: UUID) async throws(CatalogError)

    /// Sets the fingerprint of utensil `id` while its photo is still the one whose SHA-256 is
    /// `sha256` (`rethumb` fingerprinting a utensil ingested before fingerprints); false when
    /// the utensil is gone or has another photo by now, and nothing changed.
    func setFingerprint(id: UUID, to fingerprint: Int64, ofPhoto sha256: String) async throws(CatalogError) -> Bool

    /// The fingerprints of the utensils not in the trash, by id after `id` (from the first
    /// when nil), at most `limit` a page: what an in-memory look-up loads at start, page by
    /// page until a page comes back short.
    func fingerprints(after id: UUID?, limit: Int) async throws(CatalogError) -> [IdentifiedFingerprint]

    /// The fingerprints of the utensils not in the trash created at `since` or later (read
    /// through the index on the creation time): what an in-memory look-up re-reads to hold
    /// what other hosts committed since it last looked.
    func fingerprints(createdSince since: Date) async throws(CatalogError) -> [IdentifiedFingerprint]

    /// Which of `ids` (the trash too) have no fingerprint: utensils ingested before
    /// fingerprints, which `rethumb --missing` fingerprints.
    func unfingerprinted(among ids: [UUID]) async throws(CatalogError) -> Set<UUID>
}

/// A utensil's id and its photo's fingerprint (``CatalogLookalikes/fingerprints(after:limit:)``).
public struct IdentifiedFingerprint: Sendable, Equatable {
    public var id: UUID
    public var fingerprint: Int64

    public init(id: UUID, fingerprint: Int64) {
        self.id = id
        self.fingerprint = fingerprint
    }
}

/// Two utensils that look alike: `copy`, ingested as a look-alike of `original`.
public struct NearDuplicatePair: Sendable, Equatable {
    public var copy: UtensilRecord
    public var original: UtensilRecord
    /// How many of the 64 fingerprint bits differed when `copy` was ingested.
    public var distance: Int

    public init(copy: UtensilRecord, original: UtensilRecord, distance: Int) {
        self.copy = copy
        self.original = original
        self.distance = distance
    }
}

/// The multi-index look-up both backends run: the fingerprint's 64 bits are cut into four
/// 16-bit blocks, each an indexed expression (``expression(_:)``). Two fingerprints within
/// distance `d` differ in block `i` by at most ``radii(within:)``[i] bits for at least one `i`
/// (the radii add up to `d - 3`: were every block `radius + 1` bits apart or more, the four
/// would add up to `d + 1`), so a look-up reads, per block, the index entries whose block is
/// within its radius of the query's (``probes(of:within:)``: for distance 12, radii 3, 2, 2, 2
/// and 1,108 values in all), and checks the whole distance of what it finds.
public enum FingerprintBlocks {
    /// Blocks of 16 bits.
    public static let count = 4

    /// The largest distance the indexes serve (radii of 4, 5,036 values a block); beyond it a
    /// look-up reads every fingerprint.
    public static let indexedDistance = 19

    /// The SQL expression (the same text for SQLite and PostgreSQL, in the index and in the
    /// query) of block `block` of the column `fingerprint`.
    public static func expression(_ block: Int) -> String {
        "((fingerprint >> \(16 * block)) & 65535)"
    }

    /// How many bits each block is searched within for a look-up within `maximumDistance`.
    public static func radii(within maximumDistance: Int) -> [Int] {
        let budget = maximumDistance - count + 1
        guard budget > 0 else { return Array(repeating: 0, count: count) }
        return (0..<count).map { budget / count + ($0 < budget % count ? 1 : 0) }
    }

    /// Per block, the values within its radius (``radii(within:)``) of `fingerprint`'s block.
    public static func probes(of fingerprint: Int64, within maximumDistance: Int) -> [[Int64]] {
        zip(0..<count, radii(within: maximumDistance)).map { block, radius in
            let key = (UInt64(bitPattern: fingerprint) >> UInt64(16 * block)) & 0xFFFF
            var values: [Int64] = []
            collect(key, from: 0, flips: radius, into: &values)
            return values
        }
    }

    /// The Hamming distance between two fingerprints.
    public static func distance(_ a: Int64, _ b: Int64) -> Int {
        (a ^ b).nonzeroBitCount
    }

    /// Appends `value` and every value made from it by flipping up to `flips` of its bits at
    /// positions `from` and above.
    private static func collect(_ value: UInt64, from position: Int, flips: Int, into values: inout [Int64]) {
        values.append(Int64(value))
        guard flips > 0 else { return }
        for bit in position..<16 {
            collect(value ^ (1 << UInt64(bit)), from: bit + 1, flips: flips - 1, into: &values)
        }
    }
}
