import Foundation
import Logging
import UtensilCatalogSQLite
import UtensilCatalogModel
import UtensilCatalogPostgres
import UtensilCore
import UtensilLookalike
import UtensilStore

/// The look-up of near neighbours over a large catalog, through the real catalog code the
/// ingest asks (`lookalikes`, within ``Fingerprint/copyThreshold``), on either backend: `rows`
/// utensils with random fingerprints (the same every run), queried with copies of theirs (3 to
/// 12 bits changed, the 12 spread over the four blocks as the worst case) and with
/// fingerprints of nothing. Each look-up is timed on the wall clock from the call to its
/// answer (for PostgreSQL the round trip over loopback TCP included).
struct LookalikeLatency {
    let rows: Int
    let repeats: Int
    /// Whether the look-ups go through ``FingerprintMemory`` (the fingerprints loaded from the
    /// catalog, scanned in memory, each candidate confirmed by the catalog) instead of the
    /// catalog's own block indexes.
    var held = false

    /// Over the SQLite catalog `folder/lookalikes.sqlite`, made once and kept.
    func sqlite(folder: String) async throws -> [String: Any] {
        let path = "\(folder)/lookalikes.sqlite"
        var builtSeconds = 0.0
        if !FileManager.default.fileExists(atPath: path) || (try? SQLiteCatalog(path: path).count()) != rows {
            try? FileManager.default.removeItem(atPath: path)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            builtSeconds = try await fill(try SQLiteCatalog(path: path), batch: 10_000)
        }
        var result = try await measure(try SQLiteCatalog(path: path))
        result["backend"] = "sqlite"
        result["builtSeconds"] = builtSeconds
        return result
    }

    /// Over the PostgreSQL catalog of `settings` (migrated here; filled unless it holds `rows`
    /// utensils already), its pool running for the measurement only.
    func postgres(settings: PostgresCatalogSettings) async throws -> [String: Any] {
        let logger = Logger(label: "utensil-bench") { _ in SwiftLogNoOpLogHandler() }
        _ = try await PostgresMigrator.migrate(settings: settings, logger: logger)
        let pool = PostgresPool(settings: settings, logger: logger)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await pool.run() }
            defer { group.cancelAll() }
            let catalog = PostgresCatalog(pool: pool, snapshotWriter: SQLiteSnapshotWriter(), logger: logger)
            var builtSeconds = 0.0
            let held = try await catalog.count()
            if held != rows {
                guard held == 0 else { throw BenchError("\(settings) holds \(held) utensils, neither none nor \(rows)") }
                // PostgreSQL binds at most 65,535 values a statement: 20 a row.
                builtSeconds = try await fill(catalog, batch: 2_000)
            }
            var result = try await measure(catalog)
            result["backend"] = "postgres"
            result["builtSeconds"] = builtSeconds
            return result
        }
    }

    /// The same fingerprints held in memory instead, for the choice of where a look-up should
    /// run: ``NearNeighbourIndex`` (the catalog's blocks, as hash tables) and a plain scan of
    /// the fingerprints in an array, timed the same way (wall and CPU of the calling thread),
    /// with the resident memory each added.
    func memory() -> [String: Any] {
        var generator = SplitMix(seed: 43)
        let fingerprints = (0..<rows).map { _ in generator.next() }
        let before = Self.residentMB()
        var index = NearNeighbourIndex<Int32>()
        for (slot, fingerprint) in fingerprints.enumerated() { index.insert(Fingerprint(bits: fingerprint), for: Int32(slot)) }
        let indexMB = Self.residentMB() - before
        var result: [String: Any] = ["rows": rows, "backend": "memory", "indexResidentMB": Measure.rounded(indexMB, 1),
                                     "arrayMB": Measure.rounded(Double(rows * 8) / 1_048_576, 1)]
        let threshold = Fingerprint.copyThreshold
        for (name, lookUp) in [
            ("index", { (query: UInt64) in index.neighbours(of: Fingerprint(bits: query), within: threshold).count }),
            ("scan", { (query: UInt64) in Self.scan(fingerprints, query, within: threshold) }),
            ("kernel", { (query: UInt64) in FingerprintScan.matches(in: fingerprints, of: query, within: threshold).count }),
            ("kernelInSoftware", { (query: UInt64) in
                FingerprintScan.matches(in: fingerprints, of: query, within: threshold, inSoftware: true).count
            }),
        ] as [(String, (UInt64) -> Int)] {
            var walls: [Double] = [], cpus: [Double] = [], found = 0
            var strangers = SplitMix(seed: 4343)
            for round in 0..<(repeats * 2) {
                let original = fingerprints[(round * 7919) % rows]
                let query = round % 2 == 0 ? original ^ 0x0007_0007_0007_0007 : strangers.next()
                let wall = Measure.wallms(), cpu = Measure.threadCPUms()
                let matches = lookUp(query)
                cpus.append(Measure.threadCPUms() - cpu)
                walls.append(Measure.wallms() - wall)
                if round % 2 == 0, matches > 0 { found += 1 }
            }
            result[name] = ["wall": Self.summary(walls), "cpu": Self.summary(cpus), "copiesFound": found]
        }
        return result
    }

    /// How many of `fingerprints` are within `threshold` bits of `query`: one pass, no branch
    /// (what the compiler can vectorise).
    static func scan(_ fingerprints: [UInt64], _ query: UInt64, within threshold: Int) -> Int {
        fingerprints.withUnsafeBufferPointer { all in
            var near = 0
            for fingerprint in all { near &+= (fingerprint ^ query).nonzeroBitCount <= threshold ? 1 : 0 }
            return near
        }
    }

    /// The process's resident memory (VmRSS), in MB.
    static func residentMB() -> Double {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Double(line.split(separator: " ").dropFirst().first ?? "0").map { $0 / 1024 } ?? .nan
    }

    /// Times the look-ups over `catalog`, which holds the `rows` utensils of ``fill(_:batch:)``.
    private func measure(_ catalog: some CatalogBackend) async throws -> [String: Any] {
        let stored = try await catalog.count()
        guard stored == rows else { throw BenchError("the catalog holds \(stored) utensils, not \(rows)") }
        // The fingerprints of some rows, read back to make copies of.
        var originals: [Int64] = []
        for id in try await catalog.ids(after: nil, limit: repeats) {
            if let fingerprint = try await catalog.utensil(id: id)?.fingerprint { originals.append(fingerprint) }
        }
        var extra: [String: Any] = [:]
        let memory = FingerprintMemory()
        if held {
            let before = Self.residentMB(), started = Measure.wallms()
            let loaded = try await memory.load(from: catalog)
            extra = ["held": loaded, "loadSeconds": Measure.rounded((Measure.wallms() - started) / 1000),
                     "heldResidentMB": Measure.rounded(Self.residentMB() - before, 1), "popcnt": FingerprintScan.usesPOPCNT]
        }
        let lookUp = { [held] (fingerprint: Int64) async throws -> [LookalikeMatch] in
            held ? try await memory.lookalikes(of: fingerprint, within: Fingerprint.copyThreshold, limit: 5, in: catalog)
                : try await catalog.lookalikes(of: fingerprint, within: Fingerprint.copyThreshold, limit: 5)
        }
        var generator = SplitMix(seed: 4343)
        for _ in 0..<5 {  // Warm: the first statements prepared, the connection open.
            _ = try await lookUp(Int64(bitPattern: generator.next()))
        }
        var copies: [Double] = [], strangers: [Double] = [], cpus: [Double] = [], found = 0
        for (index, original) in originals.enumerated() {
            let flips = index % 2 == 0 ? [1, 17, 40] : [0, 1, 2, 16, 17, 18, 32, 33, 34, 48, 49, 50]
            let copy = flips.reduce(original) { $0 ^ (Int64(1) << Int64($1)) }
            var started = Measure.wallms(), cpu = Measure.threadCPUms()
            let matches = try await lookUp(copy)
            cpus.append(Measure.threadCPUms() - cpu)
            copies.append(Measure.wallms() - started)
            if matches.contains(where: { $0.utensil.fingerprint == original }) { found += 1 }
            let stranger = Int64(bitPattern: generator.next())
            started = Measure.wallms()
            cpu = Measure.threadCPUms()
            _ = try await lookUp(stranger)
            cpus.append(Measure.threadCPUms() - cpu)
            strangers.append(Measure.wallms() - started)
        }
        guard found == originals.count else { throw BenchError("only \(found) of \(originals.count) copies were found") }
        // The CPU of the calling thread: the whole look-up's for SQLite (in-process, on this
        // thread); for PostgreSQL only the client's share (the server's is another process's).
        return [
            "rows": rows, "lookups": copies.count + strangers.count, "path": held ? "memory" : "catalog",
            "copy": Self.summary(copies), "stranger": Self.summary(strangers), "all": Self.summary(copies + strangers),
            "threadCPU": Self.summary(cpus),
        ].merging(extra) { first, _ in first }
    }

    static func summary(_ times: [Double]) -> [String: Double] {
        [
            "p50ms": Measure.rounded(Measure.percentile(times, 50)), "p95ms": Measure.rounded(Measure.percentile(times, 95)),
            "p99ms": Measure.rounded(Measure.percentile(times, 99)), "maxms": Measure.rounded(times.max() ?? .nan),
        ]
    }

    /// Fills the empty `catalog` with the `rows` utensils, `batch` a transaction; seconds spent.
    private func fill(_ catalog: some CatalogBackend, batch: Int) async throws -> Double {
        let started = Measure.wallms()
        var generator = SplitMix(seed: 43)
        let date = Date(timeIntervalSince1970: 1_795_000_000)
        var done = 0
        while done < rows {
            let records = (done..<min(rows, done + batch)).map { index in
                let name = "Look-alike \(index)"
                return UtensilRecord(
                    id: UUID(), name: name, nameKey: UtensilName.uniquenessKey(for: name),
                    searchKey: UtensilName.searchKey(for: name), fileExtension: "jpg",
                    createdAt: date.addingTimeInterval(Double(index)), width: 4032, height: 3024, bytes: 1000,
                    sha256: String(index), sourceKey: nil, nameClaim: nil, contentClaim: nil,
                    fingerprint: Int64(bitPattern: generator.next()))
            }
            let refused = try await catalog.insert(batch: records).compactMap { $0 }
            guard refused.isEmpty else { throw BenchError("\(refused.count) rows were refused: \(refused[0])") }
            done += records.count
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
