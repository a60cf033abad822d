import Testing
import UtensilLookalike

@Suite("Fingerprint scan")
struct FingerprintScanTests {
    /// The C kernel finds exactly what Swift's `nonzeroBitCount` finds, at every threshold,
    /// over random fingerprints and near copies of some of them.
    @Test(arguments: [0, 1, 12, 19, 32, 63, 64])
    func matchesSwiftsBitCount(threshold: Int) {
        var generator = SeededGenerator(state: 0x5CA1_AB1E + UInt64(threshold))
        var fingerprints = (0..<20_000).map { _ in UInt64.random(in: .min ... .max, using: &generator) }
        // Near copies, so that small thresholds find something too.
        for slot in stride(from: 0, to: 2_000, by: 3) {
            let flips = Int.random(in: 0...16, using: &generator)
            var copy = fingerprints[slot]
            for _ in 0..<flips { copy ^= 1 << UInt64.random(in: 0..<64, using: &generator) }
            fingerprints[slot + 1] = copy
        }
        for round in 0..<40 {
            let query = round % 2 == 0 ? fingerprints[round * 3] : UInt64.random(in: .min ... .max, using: &generator)
            let expected = fingerprints.indices.filter { (fingerprints[$0] ^ query).nonzeroBitCount <= threshold }
            #expect(FingerprintScan.matches(in: fingerprints, of: query, within: threshold) == expected)
            #expect(FingerprintScan.matches(in: fingerprints, of: query, within: threshold, inSoftware: true) == expected)
        }
    }

    /// More matches than the first guess of room are all returned; nothing from an empty array.
    @Test func returnsEveryMatchAndNothingFromNothing() {
        let fingerprints = [UInt64](repeating: 0xF0F0, count: 1_000) + [UInt64.max]
        #expect(FingerprintScan.matches(in: fingerprints, of: 0xF0F0, within: 0) == Array(0..<1_000))
        #expect(FingerprintScan.matches(in: fingerprints, of: 0, within: 64).count == 1_001)
        #expect(FingerprintScan.matches(in: [], of: 0, within: 64).isEmpty)
        #expect(FingerprintScan.matches(in: fingerprints, of: 0, within: -1).isEmpty)
    }
}
