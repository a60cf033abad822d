import CFingerprintScan

/// A look-up of near neighbours by scanning every fingerprint: one pass over an array of
/// 64-bit values in C (``CFingerprintScan``), with the CPU's `POPCNT` where it has one (chosen
/// at run time; the binary targets baseline x86-64) and a portable bit count elsewhere.
public enum FingerprintScan {
    /// The indexes of `fingerprints` within `threshold` bits of `query`, in increasing order;
    /// `inSoftware` counts bits without `POPCNT` even where the CPU has it (what a CPU without
    /// it runs).
    public static func matches(
        in fingerprints: UnsafeBufferPointer<UInt64>, of query: UInt64, within threshold: Int, inSoftware: Bool = false
    ) -> [Int] {
        let scan = inSoftware ? fingerprint_scan_portable : fingerprint_scan
        guard let base = fingerprints.baseAddress, threshold >= 0 else { return [] }
        var capacity = 16
        while true {
            var found = 0
            let indexes = [Int](unsafeUninitializedCapacity: capacity) { buffer, initialised in
                // `size_t` is `UInt`, the same size as `Int`.
                found = Int(buffer.withMemoryRebound(to: size_t.self) { out in
                    scan(base, fingerprints.count, query, UInt32(min(threshold, 64)), out.baseAddress, capacity)
                })
                initialised = min(found, capacity)
            }
            if found <= capacity { return indexes }
            capacity = found
        }
    }

    /// The indexes of `fingerprints` within `threshold` bits of `query`, in increasing order.
    public static func matches(in fingerprints: [UInt64], of query: UInt64, within threshold: Int, inSoftware: Bool = false) -> [Int] {
        fingerprints.withUnsafeBufferPointer { matches(in: $0, of: query, within: threshold, inSoftware: inSoftware) }
    }

    /// Whether the scan counts bits with the CPU's `POPCNT` instruction.
    public static var usesPOPCNT: Bool { fingerprint_scan_uses_popcnt() != 0 }
}
