import Foundation
import Logging
import UtensilCatalogSQLite
import UtensilCodec
import UtensilIngest
import UtensilStore

/// The grid square's share of the engine's CPU per photo, A/B in the same run: each round
/// ingests the files once with the square and once without (`IngestSettings.gridSquareSide`
/// 0; the order alternating by round), through a fresh engine each time, and times the codec
/// with the engine's renditions with and without the square, alternating file by file. The
/// figures are medians of the per-round differences; `share` is the engine's difference over
/// the engine's CPU with the square.
struct GridSquareShare {
    let work: String
    let rounds: Int

    func measure(_ files: [(name: String, bytes: [UInt8])], set: String) throws -> [String: Any] {
        var engineWith: [Double] = [], engineWithout: [Double] = []
        var codecWith: [Double] = [], codecWithout: [Double] = []
        var squareBytes = 0, thumbnailBytes = 0
        let renditions = IngestSettings(inbox: work, rejected: work, stateDirectory: work).renditions
        var withoutSquare = renditions
        withoutSquare.squareSide = 0
        for file in files {
            let made = file.bytes.withUnsafeBytes { raw in try? ThumbnailMaker(request: renditions).makeThumbnail(from: raw) }
            squareBytes += made?.square?.count ?? 0
            thumbnailBytes += made?.jpeg.count ?? 0
        }
        for round in 0..<rounds {
            var with = 0.0, without = 0.0
            for (index, file) in files.enumerated() {
                for square in index % 2 == 0 ? [true, false] : [false, true] {
                    let codec = ThumbnailMaker(request: square ? renditions : withoutSquare)
                    let started = Measure.threadCPUms()
                    _ = file.bytes.withUnsafeBytes { raw in try? codec.makeThumbnail(from: raw) }
                    let spent = Measure.threadCPUms() - started
                    if square { with += spent } else { without += spent }
                }
            }
            codecWith.append(with / Double(files.count))
            codecWithout.append(without / Double(files.count))
            for square in round % 2 == 0 ? [true, false] : [false, true] {
                let cpu = try ingestAll(files, folder: "\(work)/\(set)-square-\(round)", square: square)
                if square { engineWith.append(cpu) } else { engineWithout.append(cpu) }
            }
        }
        let engine = Measure.median(engineWith)
        let difference = Measure.median(zip(engineWith, engineWithout).map { $0 - $1 })
        return [
            "squareSide": renditions.squareSide,
            "meanSquareBytes": squareBytes / max(files.count, 1),
            "meanThumbnailBytes": thumbnailBytes / max(files.count, 1),
            "engineCPUms": Measure.rounded(engine),
            "engineWithoutCPUms": Measure.rounded(Measure.median(engineWithout)),
            "engineDifferenceCPUms": Measure.rounded(difference, 3),
            "codecDifferenceCPUms": Measure.rounded(Measure.median(zip(codecWith, codecWithout).map { $0 - $1 }), 3),
            "share": Measure.rounded(difference / engine, 4),
        ]
    }

    /// Ingests copies of `files` through a fresh engine, with or without the grid square;
    /// returns the process CPU ms per image.
    private func ingestAll(_ files: [(name: String, bytes: [UInt8])], folder: String, square: Bool) throws -> Double {
        try? FileManager.default.removeItem(atPath: folder)
        for sub in ["inbox", "rejected", "state"] {
            try FileManager.default.createDirectory(atPath: "\(folder)/\(sub)", withIntermediateDirectories: true)
        }
        for file in files {
            try Data(file.bytes).write(to: URL(fileURLWithPath: "\(folder)/inbox/\(file.name)"))
        }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var settings = IngestSettings(inbox: "\(folder)/inbox", rejected: "\(folder)/rejected", stateDirectory: "\(folder)/state")
        settings.gridSquareSide = square ? ThumbnailRequest.defaultSquareSide : 0
        let catalog = try SQLiteCatalog(path: settings.catalogPath)
        let logger = Logger(label: "utensil-bench") { _ in SwiftLogNoOpLogHandler() }
        let store = UtensilStore(settings: settings, catalog: catalog, logger: logger, faults: FaultInjection())
        _ = try store.reconcile()
        let engine = IngestEngine(store: store)
        let drops = try InboxScanner(settings: settings).scan()
        guard drops.count == files.count else { throw BenchError("scanned \(drops.count) drops, expected \(files.count)") }
        let started = Measure.processCPUms()
        for drop in drops {
            guard case .ingested = engine.ingest(drop) else { throw BenchError("\(drop) was not ingested") }
        }
        return (Measure.processCPUms() - started) / Double(drops.count)
    }
}
