import Testing
import UtensilLookalike

/// A seeded generator (SplitMix64), so that every run checks the same fingerprints.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite("Near-neighbour index against a brute-force scan")
struct NearNeighbourIndexTests {
    /// Random fingerprints, and near each of some of them others a few bits away, so that
    /// every distance up to the largest tested has answers.
    static func fingerprints(count: Int, seed: UInt64) -> [Fingerprint] {
        var generator = SeededGenerator(state: seed)
        var made: [Fingerprint] = []
        while made.count < count {
            let base = generator.next()
            made.append(Fingerprint(bits: base))
            for _ in 0..<3 where made.count < count {
                var bits = base
                for _ in 0..<Int.random(in: 1...14, using: &generator) { bits ^= 1 << UInt64.random(in: 0..<64, using: &generator) }
                made.append(Fingerprint(bits: bits))
            }
        }
        return made
    }

    static func bruteForce(_ all: [Fingerprint], near query: Fingerprint, within distance: Int) -> [Int] {
        all.indices.filter { all[$0].distance(to: query) <= distance }
            .sorted { (all[$0].distance(to: query), $0) < (all[$1].distance(to: query), $1) }
    }

    @Test("finds exactly what a scan finds, nearest first", arguments: [1, 2, 4, 5, 11, 16], [0, 3, 6, 10, 13])
    func matchesScan(blockCount: Int, distance: Int) {
        let all = Self.fingerprints(count: 2000, seed: UInt64(blockCount * 100 + distance))
        var index = NearNeighbourIndex<Int>(blockCount: blockCount)
        for (position, fingerprint) in all.enumerated() { index.insert(fingerprint, for: position) }
        #expect(index.count == all.count)
        var answered = 0
        for query in all.prefix(200) {
            let found = index.neighbours(of: query, within: distance)
            #expect(found.map(\.id) == Self.bruteForce(all, near: query, within: distance))
            #expect(found.allSatisfy { $0.distance == $0.fingerprint.distance(to: query) })
            answered += found.count
        }
        #expect(answered > 200 || distance == 0)
    }

    @Test("a removed or replaced entry is found no more under its old fingerprint")
    func removeAndReplace() {
        let all = Self.fingerprints(count: 500, seed: 7)
        var index = NearNeighbourIndex<String>()
        for (position, fingerprint) in all.enumerated() { index.insert(fingerprint, for: "u\(position)") }
        index.remove("u0")
        index.insert(Fingerprint(bits: ~all[1].bits), for: "u1")
        index.remove("nobody")
        #expect(index.count == 498 + 1)
        #expect(!index.neighbours(of: all[0], within: 12).contains { $0.id == "u0" })
        #expect(!index.neighbours(of: all[1], within: 12).contains { $0.id == "u1" })
        #expect(index.neighbours(of: Fingerprint(bits: ~all[1].bits), within: 0).map(\.id) == ["u1"])
    }

    @Test("a negative distance finds nothing; hex round-trips")
    func edges() {
        var index = NearNeighbourIndex<Int>()
        index.insert(Fingerprint(bits: 0x0123_4567_89ab_cdef), for: 1)
        #expect(index.neighbours(of: Fingerprint(bits: 0x0123_4567_89ab_cdef), within: -1).isEmpty)
        #expect(Fingerprint(bits: 0x0123_4567_89ab_cdef).description == "0123456789abcdef")
        #expect(Fingerprint(hex: "0123456789abcdef") == Fingerprint(bits: 0x0123_4567_89ab_cdef))
        #expect(Fingerprint(hex: "123") == nil)
        #expect(Fingerprint(hex: "0123456789abcdeg") == nil)
    }
}
