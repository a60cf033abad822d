import Foundation
import UtensilCodec
import UtensilLookalike
import UtensilStore

/// The Swift side of bench/lookalike.py: fingerprints through the real codec, and pair counts
/// and look-up times through the real near-neighbour index.
enum Lookalike {
    /// The request the fingerprints are made with: the store's preview, and a 32 × 32 miniature.
    static let request = ThumbnailRequest(previewLongSide: ThumbnailRequest.defaultPreviewLongSide, miniatureSide: 32)

    /// One line per path in `list`: the path, a tab, and its fingerprint (or `-` and why none).
    static func files(list: String) throws {
        let maker = ThumbnailMaker(request: request)
        let hash = PerceptualHash(side: 32)
        var out = ""
        for path in try String(contentsOfFile: list, encoding: .utf8).split(separator: "\n").map(String.init) {
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            do {
                let made = try bytes.withUnsafeBytes { raw throws(ImageCodecError) in try maker.makeThumbnail(from: raw) }
                guard let miniature = made.miniature else { throw BenchError("\(path): no miniature") }
                out += "\(path)\t\(try hash.fingerprint(of: miniature.pixels))\n"
            } catch {
                out += "\(path)\t-\t\(error)\n"
            }
        }
        FileHandle.standardOutput.write(Data(out.utf8))
    }

    /// The finer confirmation (``CopyConfirmation``) of each pair of paths in `list` (two paths
    /// a line, tab between), made as the ingest makes it: each photo's preview through the
    /// real codec, and the confirmation's miniature decoded from that preview. One line a pair:
    /// the two paths, the correlation, the residual, and the comparison's time in microseconds
    /// (the two decodes of the preview aside); `-` for a pair that cannot be compared.
    static func confirm(list: String) throws {
        let maker = ThumbnailMaker(request: request)
        var miniatures: [String: [UInt8]] = [:]
        func miniature(_ path: String) throws -> [UInt8]? {
            if let known = miniatures[path] { return known }
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            let made = try? bytes.withUnsafeBytes { raw throws(ImageCodecError) in try maker.makeThumbnail(from: raw) }
            let pixels = made?.preview.flatMap { PhotoFingerprint.confirmationMiniature(ofPreview: $0.jpeg) }
            miniatures[path] = pixels
            return pixels
        }
        let confirmation = CopyConfirmation()
        var out = ""
        for line in try String(contentsOfFile: list, encoding: .utf8).split(separator: "\n") {
            let paths = line.split(separator: "\t").map(String.init)
            guard paths.count == 2 else { throw BenchError("lookalike-confirm: a line is two paths and a tab, not \(line)") }
            guard let one = try miniature(paths[0]), let other = try miniature(paths[1]) else {
                out += "\(paths[0])\t\(paths[1])\t-\n"
                continue
            }
            let start = Measure.wallms()
            let comparison = try confirmation.compare(one, other)
            let micros = (Measure.wallms() - start) * 1000
            out += "\(paths[0])\t\(paths[1])\t\(comparison.correlation)\t\(comparison.residual)\t\(Int(micros))\n"
        }
        FileHandle.standardOutput.write(Data(out.utf8))
    }

    /// One fingerprint (or `-`) per `side` × `side` grey image in the raw file `grey`.
    static func grey(file: String, side: Int) throws {
        let data = Array(try Data(contentsOf: URL(fileURLWithPath: file)))
        let hash = PerceptualHash(side: side)
        var out = ""
        for start in stride(from: 0, to: data.count - side * side + 1, by: side * side) {
            let pixels = Array(data[start..<(start + side * side)])
            out += ((try? hash.fingerprint(of: pixels))?.description ?? "-") + "\n"
        }
        FileHandle.standardOutput.write(Data(out.utf8))
    }

    /// The pairs within `within` among the fingerprints of `file` (hex, one a line, `-` lines
    /// skipped), found through ``NearNeighbourIndex``, and the index's look-up time.
    static func pairs(file: String, within: Int) throws -> [String: Any] {
        let fingerprints = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
            .compactMap { Fingerprint(hex: String($0)) }
        var index = NearNeighbourIndex<Int>()
        var byDistance = [Int](repeating: 0, count: within + 1)
        var pairs: [[Int]] = []
        var lookups: [Double] = []
        for (position, fingerprint) in fingerprints.enumerated() {
            let start = Measure.wallms()
            let matches = index.neighbours(of: fingerprint, within: within)
            lookups.append((Measure.wallms() - start) * 1000)
            for match in matches {
                byDistance[match.distance] += 1
                if pairs.count < 200_000 { pairs.append([match.id, position, match.distance]) }
            }
            index.insert(fingerprint, for: position)
        }
        return [
            "fingerprints": fingerprints.count, "within": within, "pairs": byDistance.reduce(0, +),
            "pairsByDistance": byDistance, "somePairs": pairs,
            "lookupMicrosecondsMedian": Measure.median(lookups), "lookupMicrosecondsP99": Measure.percentile(lookups, 99),
        ]
    }
}
