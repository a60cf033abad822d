/// An in-memory index of fingerprints that finds those within a Hamming distance of a query
/// without scanning them all (multi-index hashing): the 64 bits are cut into `blockCount`
/// blocks, each with a table from its value to the entries holding it. Two fingerprints within
/// distance `d` differ by at most `d / blockCount` (rounded down) in at least one block, so a
/// look-up probes, in every table, the values within that many bits of the query's block, and
/// checks the full distance of the entries found there. With `blockCount > d` a look-up probes
/// exact block values only. When the probes would outnumber the entries (a small index, or a
/// distance too large for the blocks), the look-up scans the entries instead.
///
/// A value type, not thread-safe to mutate from several threads at once (like an `Array`).
public struct NearNeighbourIndex<ID: Hashable & Sendable>: Sendable {
    /// A fingerprint found near a query.
    public struct Match: Sendable, Equatable {
        public var id: ID
        public var fingerprint: Fingerprint
        public var distance: Int
    }

    /// Blocks the 64 bits are cut into (1…16); the first `64 % blockCount` blocks are one bit wider.
    public let blockCount: Int
    /// Each block's (shift, mask).
    private let blocks: [(shift: UInt64, mask: UInt64)]
    /// Per block: block value → slots holding it.
    private var tables: [[UInt64: [Int32]]]
    private var fingerprints: [UInt64] = []
    /// nil where an entry was removed.
    private var ids: [ID?] = []
    private var slots: [ID: Int32] = [:]

    /// - Parameter blockCount: 4 (16-bit blocks) suits thresholds up to about 12 at a million
    ///   entries; clamped to 1…16.
    public init(blockCount: Int = 4) {
        let count = min(max(blockCount, 1), 16)
        self.blockCount = count
        var made: [(shift: UInt64, mask: UInt64)] = []
        var shift = 0
        for block in 0..<count {
            let width = 64 / count + (block < 64 % count ? 1 : 0)
            made.append((UInt64(shift), width == 64 ? UInt64.max : (UInt64(1) << UInt64(width)) - 1))
            shift += width
        }
        blocks = made
        tables = Array(repeating: [:], count: count)
    }

    /// How many entries the index holds.
    public var count: Int { slots.count }

    /// Adds `fingerprint` under `id`, replacing what `id` had.
    public mutating func insert(_ fingerprint: Fingerprint, for id: ID) {
        remove(id)
        let slot = Int32(fingerprints.count)
        fingerprints.append(fingerprint.bits)
        ids.append(id)
        slots[id] = slot
        for (block, part) in blocks.enumerated() {
            tables[block][(fingerprint.bits >> part.shift) & part.mask, default: []].append(slot)
        }
    }

    /// Removes `id`'s entry; nothing when it has none.
    public mutating func remove(_ id: ID) {
        guard let slot = slots.removeValue(forKey: id) else { return }
        let bits = fingerprints[Int(slot)]
        ids[Int(slot)] = nil
        for (block, part) in blocks.enumerated() {
            let key = (bits >> part.shift) & part.mask
            tables[block][key]?.removeAll { $0 == slot }
            if tables[block][key]?.isEmpty == true { tables[block][key] = nil }
        }
    }

    /// The entries within `maximumDistance` of `fingerprint`, nearest first (ties in insertion order).
    public func neighbours(of fingerprint: Fingerprint, within maximumDistance: Int) -> [Match] {
        guard maximumDistance >= 0 else { return [] }
        let query = fingerprint.bits
        let radius = maximumDistance / blockCount
        var found: [(slot: Int32, distance: Int)] = []
        if probeCount(radius: radius) > slots.count {
            for (slot, bits) in fingerprints.enumerated() where ids[slot] != nil {
                let distance = (bits ^ query).nonzeroBitCount
                if distance <= maximumDistance { found.append((Int32(slot), distance)) }
            }
        } else {
            probe(query, within: maximumDistance, radius: radius, into: &found)
        }
        found.sort { ($0.distance, $0.slot) < ($1.distance, $1.slot) }
        return found.compactMap { entry in
            ids[Int(entry.slot)].map { Match(id: $0, fingerprint: Fingerprint(bits: fingerprints[Int(entry.slot)]), distance: entry.distance) }
        }
    }

    /// How many table values a look-up at `radius` bits a block probes, capped at `Int.max / 2`.
    private func probeCount(radius: Int) -> Int {
        var total = 0
        for part in blocks {
            let width = part.mask.nonzeroBitCount
            var choose = 1  // C(width, i)
            for i in 0...min(radius, width) {
                if i > 0 { choose = choose * (width - i + 1) / i }
                total += choose
                if total > Int.max / 4 || choose > Int.max / 128 { return Int.max / 2 }
            }
        }
        return total
    }

    /// The multi-index look-up: the entries in the table buckets within `radius` of the query's blocks.
    private func probe(_ query: UInt64, within maximumDistance: Int, radius: Int, into found: inout [(slot: Int32, distance: Int)]) {
        for (block, part) in blocks.enumerated() {
            let key = (query >> part.shift) & part.mask
            Self.forEachValue(near: key, mask: part.mask, radius: radius) { probe in
                guard let bucket = tables[block][probe] else { return }
                for slot in bucket {
                    let bits = fingerprints[Int(slot)]
                    let distance = (bits ^ query).nonzeroBitCount
                    guard distance <= maximumDistance, !foundInEarlierBlock(bits, query, before: block, radius: radius)
                    else { continue }
                    found.append((slot, distance))
                }
            }
        }
    }

    /// Whether an earlier block's probe already reached `bits` (so it is reported once).
    private func foundInEarlierBlock(_ bits: UInt64, _ query: UInt64, before block: Int, radius: Int) -> Bool {
        for earlier in 0..<block {
            let part = blocks[earlier]
            if (((bits ^ query) >> part.shift) & part.mask).nonzeroBitCount <= radius { return true }
        }
        return false
    }

    /// Calls `body` with every value within `radius` bits of `key` inside `mask`.
    private static func forEachValue(near key: UInt64, mask: UInt64, radius: Int, _ body: (UInt64) -> Void) {
        let width = mask.nonzeroBitCount
        func flip(_ value: UInt64, from lowest: Int, left: Int) {
            body(value)
            guard left > 0 else { return }
            for bit in lowest..<width {
                flip(value ^ (UInt64(1) << UInt64(bit)), from: bit + 1, left: left - 1)
            }
        }
        flip(key, from: 0, left: min(radius, width))
    }
}
