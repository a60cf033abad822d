import Crypto
import Foundation
import Logging
import UtensilCatalogSQLite
import UtensilCatalogModel
import UtensilCodec
import UtensilIngest
import UtensilLookalike
import UtensilStore

/// CPU spent per photo by the real ingest engine (`IngestEngine.ingest`: open, read, hash,
/// sniff, duplicate checks, decode, thumbnail and preview, write the three files, fsync them
/// and their folders, commit the row, remove the drop), one drop after the other on one
/// thread, in a fresh state folder; beside it the codec alone (`makeThumbnail` on bytes in
/// memory, the thumbnail alone and with the preview, as the ingest makes them), the SHA-256
/// alone, and the decode floors (at the thumbnail's DCT scale and at the one that also covers
/// the preview; the latter into RGB and, as the engine decodes a 4:2:0 JPEG, into its planes),
/// all on the same files in the same process.
///
/// The look-alikes' share, A/B in the same run: each round ingests the files once with
/// `near_duplicates` off and once with it on (`warn`, the default; the order alternating by
/// round), the difference being the look-up; and the fingerprint itself (the grey miniature
/// the decode makes beside the renditions, and its hash), timed as the codec with the engine's
/// renditions with and without the miniature, alternating file by file, plus the hash alone.
struct EngineCPU {
    let work: String
    let rounds: Int

    struct SetResult {
        var name: String
        var images: Int
        var megapixels: Double
        var bytes: Int
        var scale: String?
        var floorCPUms: [Double] = []   // per round: mean over files
        var previewFloorCPUms: [Double] = []
        /// The preview's decode as utensild does it (4:2:0 JPEGs into planes).
        var planarFloorCPUms: [Double] = []
        var previewScale: String?
        var codecCPUms: [Double] = []
        var codecPreviewCPUms: [Double] = []
        var previewBytes = 0
        var hashCPUms: [Double] = []
        var engineCPUms: [Double] = []  // process CPU / images
        var engineWallms: [Double] = []
        /// The engine with `near_duplicates` off, in the same rounds.
        var engineOffCPUms: [Double] = []
        /// The codec with the engine's renditions, with and without the grey miniature; the hash alone.
        var renditionsCPUms: [Double] = []
        var renditionsWithoutMiniatureCPUms: [Double] = []
        var hashFingerprintCPUms: [Double] = []

        var json: [String: Any] {
            var result: [String: Any] = [
                "images": images, "megapixels": Measure.rounded(megapixels, 1), "meanBytes": bytes / max(images, 1),
                "rounds": engineCPUms.count,
                "codecCPUms": Measure.rounded(Measure.median(codecCPUms)),
                "codecPreviewCPUms": Measure.rounded(Measure.median(codecPreviewCPUms)),
                "meanPreviewBytes": previewBytes / max(images, 1),
                "hashCPUms": Measure.rounded(Measure.median(hashCPUms)),
                "engineCPUms": Measure.rounded(Measure.median(engineCPUms)),
                "engineWallms": Measure.rounded(Measure.median(engineWallms)),
            ]
            if !engineOffCPUms.isEmpty {
                // Medians of the per-round differences: each pair ran back to back.
                let engine = Measure.median(engineCPUms)
                let lookup = Measure.median(zip(engineCPUms, engineOffCPUms).map { $0 - $1 })
                let miniature = Measure.median(zip(renditionsCPUms, renditionsWithoutMiniatureCPUms).map { $0 - $1 })
                let fingerprint = max(0, miniature) + Measure.median(hashFingerprintCPUms)
                result["lookalike"] = [
                    "engineOffCPUms": Measure.rounded(Measure.median(engineOffCPUms)),
                    "lookupCPUms": Measure.rounded(lookup, 3), "miniatureCPUms": Measure.rounded(miniature, 3),
                    "hashCPUms": Measure.rounded(Measure.median(hashFingerprintCPUms), 3),
                    "fingerprintCPUms": Measure.rounded(fingerprint, 3),
                    "share": Measure.rounded((max(0, lookup) + fingerprint) / engine, 4),
                ]
            }
            if !floorCPUms.isEmpty {
                let floor = Measure.median(floorCPUms)
                result["floorCPUms"] = Measure.rounded(floor)
                result["engineOverFloor"] = Measure.rounded(Measure.median(engineCPUms) / floor, 3)
                result["codecOverFloor"] = Measure.rounded(Measure.median(codecCPUms) / floor, 3)
                result["dctScale"] = scale ?? "?"
            }
            if !previewFloorCPUms.isEmpty {
                let floor = Measure.median(previewFloorCPUms)
                result["previewFloorCPUms"] = Measure.rounded(floor)
                result["engineOverPreviewFloor"] = Measure.rounded(Measure.median(engineCPUms) / floor, 3)
                result["previewDctScale"] = previewScale ?? "?"
            }
            if !planarFloorCPUms.isEmpty {
                let floor = Measure.median(planarFloorCPUms)
                result["planarFloorCPUms"] = Measure.rounded(floor)
                result["engineOverPlanarFloor"] = Measure.rounded(Measure.median(engineCPUms) / floor, 3)
            }
            return result
        }
    }

    func run(sets: [(name: String, folder: String)]) throws -> [String: Any] {
        var results: [String: Any] = [:]
        for set in sets {
            let files = try readFiles([set.folder])
            guard !files.isEmpty else { throw BenchError("no files in \(set.folder)") }
            let isJPEG = files.allSatisfy { $0.bytes.withUnsafeBytes { ThumbnailMaker.sniff($0) } == .jpeg }
            let maker = ThumbnailMaker(request: ThumbnailRequest())
            let previewMaker = ThumbnailMaker(request: ThumbnailRequest(previewLongSide: ThumbnailRequest.defaultPreviewLongSide))
            var pixels = 0.0, previewBytes = 0
            for file in files {
                let thumbnail = try file.bytes.withUnsafeBytes { raw in
                    try Result { () throws(ImageCodecError) in try maker.makeThumbnail(from: raw) }.get()
                }
                pixels += Double(thumbnail.width * thumbnail.height)
                previewBytes += (file.bytes.withUnsafeBytes { raw in try? previewMaker.makeThumbnail(from: raw) })?
                    .preview?.jpeg.count ?? 0
            }
            var result = SetResult(
                name: set.name, images: files.count, megapixels: pixels / Double(files.count) / 1e6,
                bytes: files.reduce(0) { $0 + $1.bytes.count })
            result.previewBytes = previewBytes
            let floor = DecodeFloor()
            let previewFloor = DecodeFloor(previewLongSide: ThumbnailRequest.defaultPreviewLongSide)
            if isJPEG {
                result.scale = Set(files.map { floor.scaleDescription($0.bytes) }).sorted().joined(separator: ",")
                result.previewScale = Set(files.map { previewFloor.scaleDescription($0.bytes) }).sorted().joined(separator: ",")
            }
            for round in 0..<rounds {
                if isJPEG {
                    result.floorCPUms.append(Measure.mean(try files.map { try floor.decodeCPUms($0.bytes) }))
                    result.previewFloorCPUms.append(Measure.mean(try files.map { try previewFloor.decodeCPUms($0.bytes) }))
                    result.planarFloorCPUms.append(
                        Measure.mean(try files.map { try previewFloor.planarDecodeCPUms($0.bytes) }))
                }
                result.codecPreviewCPUms.append(Measure.mean(files.map { file in
                    let started = Measure.threadCPUms()
                    _ = file.bytes.withUnsafeBytes { raw in try? previewMaker.makeThumbnail(from: raw) }
                    return Measure.threadCPUms() - started
                }))
                result.codecCPUms.append(Measure.mean(files.map { file in
                    let started = Measure.threadCPUms()
                    _ = file.bytes.withUnsafeBytes { raw in try? maker.makeThumbnail(from: raw) }
                    return Measure.threadCPUms() - started
                }))
                result.hashCPUms.append(Measure.mean(files.map { file in
                    let started = Measure.threadCPUms()
                    _ = SHA256.hash(data: file.bytes)
                    return Measure.threadCPUms() - started
                }))
                let renditions = IngestSettings(inbox: work, rejected: work, stateDirectory: work).renditions
                var withoutMiniature = renditions
                withoutMiniature.miniatureSide = 0
                let hash = PerceptualHash(side: renditions.miniatureSide)
                var with = 0.0, without = 0.0, hashing = 0.0
                for (index, file) in files.enumerated() {
                    for miniature in index % 2 == 0 ? [true, false] : [false, true] {
                        let codec = ThumbnailMaker(request: miniature ? renditions : withoutMiniature)
                        let started = Measure.threadCPUms()
                        let made = file.bytes.withUnsafeBytes { raw in try? codec.makeThumbnail(from: raw) }
                        let spent = Measure.threadCPUms() - started
                        if miniature { with += spent } else { without += spent }
                        if let pixels = made?.miniature?.pixels {
                            let started = Measure.threadCPUms()
                            _ = try? hash.fingerprint(of: pixels)
                            hashing += Measure.threadCPUms() - started
                        }
                    }
                }
                result.renditionsCPUms.append(with / Double(files.count))
                result.renditionsWithoutMiniatureCPUms.append(without / Double(files.count))
                result.hashFingerprintCPUms.append(hashing / Double(files.count))
                for lookalikes in round % 2 == 0 ? [false, true] : [true, false] {
                    let (cpu, wall) = try ingestAll(
                        files, folder: "\(work)/\(set.name)-\(round)", nearDuplicates: lookalikes ? .warn : .off)
                    if lookalikes {
                        result.engineCPUms.append(cpu)
                        result.engineWallms.append(wall)
                    } else {
                        result.engineOffCPUms.append(cpu)
                    }
                }
            }
            var json = result.json
            json["gridSquare"] = try GridSquareShare(work: work, rounds: rounds).measure(files, set: set.name)
            results[set.name] = json
        }
        return results
    }

    /// Ingests copies of `files` through a fresh engine; returns CPU and wall ms per image.
    private func ingestAll(
        _ files: [(name: String, bytes: [UInt8])], folder: String, nearDuplicates: IngestSettings.NearDuplicates
    ) throws -> (Double, Double) {
        try? FileManager.default.removeItem(atPath: folder)
        for sub in ["inbox", "rejected", "state"] {
            try FileManager.default.createDirectory(atPath: "\(folder)/\(sub)", withIntermediateDirectories: true)
        }
        for file in files {
            try Data(file.bytes).write(to: URL(fileURLWithPath: "\(folder)/inbox/\(file.name)"))
        }
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var settings = IngestSettings(inbox: "\(folder)/inbox", rejected: "\(folder)/rejected", stateDirectory: "\(folder)/state")
        settings.nearDuplicates = nearDuplicates
        let catalog = try SQLiteCatalog(path: settings.catalogPath)
        let logger = Logger(label: "utensil-bench") { _ in SwiftLogNoOpLogHandler() }
        let store = UtensilStore(settings: settings, catalog: catalog, logger: logger, faults: FaultInjection())
        _ = try store.reconcile()
        let engine = IngestEngine(store: store)
        let drops = try InboxScanner(settings: settings).scan()
        guard drops.count == files.count else { throw BenchError("scanned \(drops.count) drops, expected \(files.count)") }

        let cpuStart = Measure.processCPUms(), wallStart = Measure.wallms()
        for drop in drops {
            guard case .ingested = engine.ingest(drop) else { throw BenchError("\(drop) was not ingested") }
        }
        let cpu = Measure.processCPUms() - cpuStart, wall = Measure.wallms() - wallStart
        return (cpu / Double(drops.count), wall / Double(drops.count))
    }
}
