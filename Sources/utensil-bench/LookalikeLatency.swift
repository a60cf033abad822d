import Foundation
import UtensilCatalog
import UtensilCatalogModel
import UtensilCore
import UtensilLookalike

/// The look-up of near neighbours over a large SQLite catalog, through the real catalog code
/// the ingest asks (`SQLiteCatalog.lookalikes`, within ``Fingerprint/copyThreshold``): `rows`
/// utensils with random fingerprints, queried with copies of theirs (3 to 12 bits changed,
/// the 12 spread over the four blocks as the worst case) and with fingerprints of nothing.
struct LookalikeLatency {
    let folder: String
    let rows: Int
    let repeats: Int

    func run() throws -> [String: Any] {
        let path = "\(folder)/lookalikes.sqlite"
        var generator = SplitMix(seed: 43)
        let builtSeconds = try build(path, &generator)
        let catalog = try SQLiteCatalog(path: path)
        let stored = try catalog.allIDs().count
        guard stored == rows else { throw BenchError("\(path) holds \(stored) utensils, not \(rows)") }
        // The fingerprints of some rows, read back to make copies of.
        var originals: [Int64] = []
        for id in try catalog.ids(after: nil, limit: repeats) {
            if let fingerprint = try catalog.utensil(id: id)?.fingerprint { originals.append(fingerprint) }
        }
        _ = try catalog.lookalikes(of: originals.first ?? 0, within: Fingerprint.copyThreshold, limit: 5)  // Warm.
        var copies: [Double] = [], strangers: [Double] = [], found = 0
        for (index, original) in originals.enumerated() {
            let flips = index % 2 == 0 ? [1, 17, 40] : [0, 1, 2, 16, 17, 18, 32, 33, 34, 48, 49, 50]
            let copy = flips.reduce(original) { $0 ^ (Int64(1) << Int64($1)) }
            var started = Measure.wallms()
            if try catalog.lookalikes(of: copy, within: Fingerprint.copyThreshold, limit: 5).contains(where: { $0.utensil.fingerprint == original }) {
                found += 1
            }
            copies.append(Measure.wallms() - started)
            let stranger = Int64(bitPattern: generator.next())
            started = Measure.wallms()
            _ = try catalog.lookalikes(of: stranger, within: Fingerprint.copyThreshold, limit: 5)
            strangers.append(Measure.wallms() - started)
        }
        guard found == originals.count else { throw BenchError("only \(found) of \(originals.count) copies were found") }
        return [
            "rows": rows, "builtSeconds": builtSeconds, "lookups": copies.count + strangers.count,
            "copy": Self.summary(copies), "stranger": Self.summary(strangers),
        ]
    }

    static func summary(_ times: [Double]) -> [String: Double] {
        [
            "p50ms": Measure.rounded(Measure.percentile(times, 50)), "p95ms": Measure.rounded(Measure.percentile(times, 95)),
            "maxms": Measure.rounded(times.max() ?? .nan),
        ]
    }

    /// Makes the catalog unless it holds `rows` utensils already; seconds spent (0 when it did).
    private func build(_ path: String, _ generator: inout SplitMix) throws -> Double {
        if FileManager.default.fileExists(atPath: path), (try? SQLiteCatalog(path: path).allIDs().count) == rows { return 0 }
        let started = Measure.wallms()
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let catalog = try SQLiteCatalog(path: path)
        let date = Date(timeIntervalSince1970: 1_795_000_000)
        var done = 0
        while done < rows {
            let batch = (done..<min(rows, done + 10_000)).map { index in
                let name = "Look-alike \(index)"
                let key = UtensilName.uniquenessKey(for: name)
                return UtensilRecord(
                    id: UUID(), name: name, nameKey: key, searchKey: UtensilName.searchKey(for: name), fileExtension: "jpg",
                    createdAt: date.addingTimeInterval(Double(index)), width: 4032, height: 3024, bytes: 1000,
                    sha256: String(index), sourceKey: nil, nameClaim: nil, contentClaim: nil,
                    fingerprint: Int64(bitPattern: generator.next()))
            }
            _ = try catalog.insert(batch: batch)
            done += batch.count
        }
        return Measure.rounded((Measure.wallms() - started) / 1000)
    }
}

/// A small seeded generator of 64-bit values (SplitMix64): the same catalog every run.
struct SplitMix {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
