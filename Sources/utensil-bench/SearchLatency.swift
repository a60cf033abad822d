import Foundation
import UtensilCatalogSQLite
import UtensilCatalogModel
import UtensilCore

/// `list --search` over a large catalog, through the real catalog code the daemon answers
/// with (`SQLiteCatalog.list`, first page of 50, as `utensilctl list --search` asks for).
struct SearchLatency {
    let folder: String
    let rows: Int
    let repeats: Int

    /// Searches of every kind: one and two letters (LIKE), a word in one name in 60 (trigram
    /// index), words in one name in 12 and in 18 (dense: the sort order is walked), a word
    /// found only with its accent folded (Löffel), one name in 100,000, and nothing at all.
    var queries: [String] {
        // The material, noun and number of the middle row: exactly one name holds them.
        let middle = Self.name(rows / 2).split(separator: " ").suffix(3).joined(separator: " ")
        return ["e", "an", "whisk", "copper", "creme brulee", "loffel", middle.lowercased(), "zzqx"]
    }

    static let adjectives = [
        "Old", "Small", "Large", "Blue", "Red", "Heavy", "Long", "Short", "Round", "Flat", "Grand-mère's", "Vintage",
        "Spare", "Camping", "Crème brûlée", "Sharp", "Wide", "Tiny",
    ]
    static let materials = [
        "copper", "steel", "wooden", "silicone", "cast-iron", "ceramic", "glass", "bamboo", "enamel", "brass",
        "olive-wood", "plastic",
    ]
    static let nouns = [
        "whisk", "spatula", "ladle", "spoon", "fork", "knife", "tongs", "sieve", "grater", "peeler", "pan", "pot",
        "skillet", "wok", "colander", "rolling-pin", "torch", "mandoline", "Löffel", "Schneebesen", "cuillère",
        "louche", "casserole", "mortar", "pestle", "zester", "scoop", "masher", "thermometer", "timer", "scale", "jar",
        "funnel", "baster", "brush", "skewer", "cleaver", "tagine", "steamer", "kettle", "teapot", "press", "mill",
        "board", "bowl", "cup", "jug", "tray", "rack", "mould", "cutter", "strainer", "blender", "mixer", "opener",
        "corkscrew", "shaker", "dish", "plate", "ramekin",
    ]

    /// The name of row `index`: adjective, material, noun, number ("Crème brûlée copper whisk 14").
    static func name(_ index: Int) -> String {
        "\(adjectives[index % adjectives.count]) \(materials[(index / 7) % materials.count]) \(nouns[(index / 3) % nouns.count]) \(index)"
    }

    func run() throws -> [String: Any] {
        let path = "\(folder)/utensils.sqlite"
        let built = try build(path)
        let catalog = try SQLiteCatalog(path: path)
        guard try catalog.count() == rows else { throw BenchError("\(path) does not hold \(rows) utensils") }
        // Every search once first, untimed in the percentiles (as the scale and gallery rows
        // do): the bench's earlier phases may have pushed the catalog's pages out of the page
        // cache, and the first pass then waits for the disk, which is not what the percentiles
        // measure. Its slowest search is reported on its own.
        /// One search's first page, timed: milliseconds and the utensils on the page.
        func firstPage(_ query: String, _ sort: ListSort) throws -> (ms: Double, count: Int) {
            let started = Measure.wallms()
            let page = try catalog.list(search: query, sort: sort, limit: 50, after: nil)
            return (Measure.wallms() - started, page.utensils.count)
        }
        let sorts = [ListSort.newestFirst, .name]
        let firstPass = try queries.flatMap { query in try sorts.map { try firstPage(query, $0).ms } }
        var all: [Double] = []
        var perQuery: [String: Any] = [:]
        for query in queries {
            var times: [Double] = []
            var matches = 0
            for sort in sorts {
                for _ in 0..<repeats {
                    let (ms, count) = try firstPage(query, sort)
                    times.append(ms)
                    matches = max(matches, count)
                }
            }
            all += times
            perQuery[query] = [
                "p50ms": Measure.rounded(Measure.percentile(times, 50)),
                "p99ms": Measure.rounded(Measure.percentile(times, 99)), "firstPage": matches,
            ]
        }
        return [
            "rows": rows, "samples": all.count, "builtNow": built,
            "p50ms": Measure.rounded(Measure.percentile(all, 50)),
            "p99ms": Measure.rounded(Measure.percentile(all, 99)),
            "maxms": Measure.rounded(all.max() ?? .nan),
            "firstPassMaxms": Measure.rounded(firstPass.max() ?? .nan),
            "queries": perQuery,
        ]
    }

    /// Fills a new catalog with `rows` utensils named like a kitchen's (cached: built once).
    private func build(_ path: String) throws -> Bool {
        if FileManager.default.fileExists(atPath: path) { return false }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let partial = path + ".building"
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: partial + suffix) }
        let catalog = try SQLiteCatalog(path: partial)
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        var batch: [UtensilRecord] = []
        for index in 0..<rows {
            let name = Self.name(index)
            let key = UtensilName.uniquenessKey(for: name)
            let hex = String(index, radix: 16)
            let sha = String(repeating: "0", count: 64 - hex.count) + hex
            batch.append(UtensilRecord(
                id: UUID(), name: name, nameKey: key, searchKey: UtensilName.searchKey(for: name),
                fileExtension: "jpg", createdAt: start.addingTimeInterval(Double(index) * 37), width: 4032,
                height: 3024, bytes: 2_000_000 + index, sha256: sha, sourceKey: "bench:\(index)",
                nameClaim: key, contentClaim: sha))
            if batch.count == 2000 || index == rows - 1 {
                let refused = try catalog.insert(batch: batch)
                if let first = refused.compactMap({ $0 }).first { throw BenchError("catalog refused a row: \(first)") }
                batch.removeAll(keepingCapacity: true)
            }
        }
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        try FileManager.default.moveItem(atPath: partial, toPath: path)
        for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: partial + suffix) {
            try FileManager.default.moveItem(atPath: partial + suffix, toPath: path + suffix)
        }
        return true
    }
}
