import Foundation
import Glibc
import UtensilCatalogSQLite
import UtensilCatalogModel
import UtensilCore

/// A state folder as the daemon keeps it, at scale: `rows` utensils in a catalog made by the
/// real ``SQLiteCatalog`` (its migrations, its record encoding) with the three files of each on disk.
///
/// The rows go in through ``SQLiteCatalog/insert(batch:)`` 10,000 at a time, and every original,
/// thumbnail and preview is a hard link to one small photo and its thumbnail (standing in for the preview) (a fresh copy every ``linksPerCopy`` links: ext4 allows
/// 65,000 links to a file). Start-up and `check` look at names, not contents; `rethumb` reads
/// the photo, which is real. Names are ``SearchLatency/name(_:)``'s; one utensil in
/// ``uncategorisedEvery`` has no category, the others one of ``categories``.
struct ScaleCatalog {
    let state: String
    let rows: Int
    let original: String
    let thumbnail: String

    static let categories = [
        "Knives", "Whisks", "Spoons", "Pans", "Pots", "Boards", "Bowls", "Graters", "Peelers", "Ladles",
        "Spatulas", "Tongs", "Sieves", "Scales", "Timers", "Jars", "Cups", "Trays", "Mills", "Kettles",
    ]
    static let uncategorisedEvery = 7
    static let linksPerCopy = 50_000

    /// Builds the folder unless it is there already (`state/.complete` marks a finished build).
    func run() throws -> [String: Any] {
        let complete = state + "/.complete"
        if FileManager.default.fileExists(atPath: complete) {
            // Migrated here, not in the daemon's first timed start, when the catalog is older;
            // and staging/ made, which a folder built before it existed lacks (nothing of a
            // crash is in it: it was built here).
            let started = Measure.wallms()
            // previews/, which a folder built before previews existed lacks.
            if !FileManager.default.fileExists(atPath: "\(state)/previews") {
                try FileManager.default.createDirectory(atPath: "\(state)/previews", withIntermediateDirectories: true)
                let ids = try SQLiteCatalog(path: "\(state)/utensils.sqlite").allIDs().sorted { $0.uuidString < $1.uuidString }
                try link(ids, from: thumbnail, into: "\(state)/previews", fileExtension: "jpeg", tag: "preview")
            }
            try FileManager.default.createDirectory(atPath: "\(state)/staging", withIntermediateDirectories: true)
            _ = try SQLiteCatalog(path: "\(state)/utensils.sqlite")
            return ["rows": rows, "builtNow": false, "openSeconds": Measure.rounded((Measure.wallms() - started) / 1000)]
        }
        let started = Measure.wallms()
        try? FileManager.default.removeItem(atPath: state)
        // With staging/ the state folder is of this version: its first start looks only there.
        for folder in ["originals", "thumbnails", "previews", "staging"] {
            try FileManager.default.createDirectory(atPath: "\(state)/\(folder)", withIntermediateDirectories: true)
        }
        let path = "\(state)/utensils.sqlite"
        let ids = try insertRows(path)
        let rowsMs = Measure.wallms() - started
        try link(ids, from: original, into: "\(state)/originals", fileExtension: "jpg", tag: "original")
        try link(ids, from: thumbnail, into: "\(state)/thumbnails", fileExtension: "jpeg", tag: "thumbnail")
        try link(ids, from: thumbnail, into: "\(state)/previews", fileExtension: "jpeg", tag: "preview")
        guard FileManager.default.createFile(atPath: complete, contents: Data()) else {
            throw BenchError("cannot write \(complete)")
        }
        return [
            "rows": rows, "builtNow": true, "rowsSeconds": Measure.rounded(rowsMs / 1000),
            "seconds": Measure.rounded((Measure.wallms() - started) / 1000),
        ]
    }

    private func insertRows(_ path: String) throws -> [UUID] {
        let catalog = try SQLiteCatalog(path: path)
        var ids: [UUID] = []
        ids.reserveCapacity(rows)
        var batch: [UtensilRecord] = []
        for row in 0..<rows {
            let record = Self.record(row)
            ids.append(record.id)
            batch.append(record)
            if batch.count == 10_000 || row == rows - 1 {
                let refused = try catalog.insert(batch: batch)
                if let first = refused.compactMap({ $0 }).first { throw BenchError("catalog refused a row: \(first)") }
                batch.removeAll(keepingCapacity: true)
            }
        }
        return ids
    }

    /// The utensil of row `row` (a fresh id), as the daemon would have written it: the name
    /// ``SearchLatency/name(_:)`` with its keys and claims, a content hash made of the row
    /// number, one in ``uncategorisedEvery`` without a category, 37 s after the row before.
    /// `PostgresRows` writes the same rows for a PostgreSQL catalog, with `host`.
    static func record(_ row: Int, host: String? = nil) -> UtensilRecord {
        let name = SearchLatency.name(row)
        let key = UtensilName.uniquenessKey(for: name)
        let hex = String(row, radix: 16)
        let sha = String(repeating: "0", count: 64 - hex.count) + hex
        return UtensilRecord(
            id: UUID(), name: name, nameKey: key, searchKey: UtensilName.searchKey(for: name),
            fileExtension: "jpg", createdAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(row) * 37), width: 1024,
            height: 768, bytes: 100_000 + row, sha256: sha, sourceKey: "bench:\(row)", nameClaim: key,
            contentClaim: sha,
            category: row % uncategorisedEvery == 0 ? nil : categories[row % categories.count],
            addedBy: "bench", host: host)
    }

    /// `<id>.<ext>` in `folder` for every id, each a hard link to a copy of `source`.
    private func link(_ ids: [UUID], from source: String, into folder: String, fileExtension: String, tag: String) throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: source))
        var copy = ""
        for (index, id) in ids.enumerated() {
            if index % Self.linksPerCopy == 0 {
                copy = "\(state)/.source-\(tag)-\(index / Self.linksPerCopy)"
                try bytes.write(to: URL(fileURLWithPath: copy))
            }
            let target = "\(folder)/\(id.uuidString).\(fileExtension)"
            guard Glibc.link(copy, target) == 0 else {
                throw BenchError("cannot link \(target): \(String(cString: strerror(errno)))")
            }
        }
    }
}
