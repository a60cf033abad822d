import Foundation
import Testing
@testable import UtensilCodec

/// PngSuite (Willem van Schaik's public conformance suite, `Tests/Fixtures/pngsuite`, free to
/// use and redistribute: its LICENSE is beside the files) through the real decoder path.
///
/// - Every `x*` file (deliberately broken) is refused as corrupt.
/// - Every other file (all colour types and bit depths, Adam7 interlacing at every size from
///   1×1 to 40×40, 16-bit, gamma, transparency, palettes, ancillary chunks, odd chunk
///   orders, zlib levels) makes a thumbnail close to a reference: Pillow's decode of the same
///   file, composited on white, its centre square resized with Pillow's bilinear filter
///   (`reference_thumbnails` below), the same geometry our resampler uses when enlarging.
///
/// Tolerance: the thumbnail went through JPEG at quality 85, so pixels differ a little
/// everywhere and more at hard edges (the suite is full of one-pixel checkerboards enlarged
/// 5.6×, where chroma subsampling smears colour). The mean absolute difference over all
/// pixels and channels must be at most 4 levels of 255, and the mean of every 20×20 block
/// (what a person sees in a 180 px thumbnail) within 8 levels on each channel (the suite measured at most 3.4 and 4.1 when this was written). A decode that
/// loses a pass, a palette entry, a transparency key or the 16-bit scaling misses both by far.
@Suite("PngSuite conformance")
struct PngSuiteConformanceTests {
    static let folder = URL(fileURLWithPath: FixtureTool.fixtureFolder).appendingPathComponent("pngsuite")
    static let size = 180

    static let names: [String] = {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return files.filter { $0.hasSuffix(".png") }.sorted()
    }()
    static let broken = names.filter { $0.hasPrefix("x") }
    static let valid = names.filter { !$0.hasPrefix("x") }

    /// Pillow's reference thumbnails, by file name, as 180×180 RGB8 (made once per run).
    static let references: Result<[String: [UInt8]], any Error> = Result {
        try FixtureTool.withTemporaryFolder { output in
            try FixtureTool.runPython(
                """
                import numpy as np
                REFERENCE_SIZE = \(size)
                SUITE = \(String(reflecting: folder.path))
                """ + "\n" + referenceScript, in: output)
            var thumbnails: [String: [UInt8]] = [:]
            for name in valid {
                let raw = output.appendingPathComponent(name).appendingPathExtension("rgb")
                thumbnails[name] = Array(try Data(contentsOf: raw))
            }
            return thumbnails
        }
    }

    static let referenceScript = #"""
import glob, os

def reference(path, size):
    """Pillow's decode, alpha on white, the centre square resized (bilinear up, Lanczos down)."""
    im = Image.open(path)
    im.load()
    if im.mode == 'I':
        # 16-bit grey: Pillow keeps the samples (its convert() would clip); a tRNS key is a 16-bit value.
        samples = np.array(im, dtype=np.int64)
        grey = (samples * 255 + 32767) // 65535
        alpha = np.full(samples.shape, 255)
        key = im.info.get('transparency')
        if key is not None:
            alpha[samples == key] = 0
        rgba = np.dstack([grey, grey, grey, alpha]).astype(np.float64)
    else:
        rgba = np.array(im.convert('RGBA'), dtype=np.float64)
    alpha = rgba[..., 3:4] / 255
    rgb = rgba[..., :3] * alpha + 255 * (1 - alpha)
    h, w = rgb.shape[:2]
    side = min(w, h)
    box = ((w - side) / 2, (h - side) / 2, (w + side) / 2, (h + side) / 2)
    flat = Image.fromarray(np.clip(rgb + 0.5, 0, 255).astype(np.uint8), 'RGB')
    resample = Image.BILINEAR if side < size else Image.LANCZOS
    return flat.resize((size, size), resample, box=box)

for path in sorted(glob.glob(os.path.join(SUITE, '*.png'))):
    name = os.path.basename(path)
    if not name.startswith('x'):
        with open(name + '.rgb', 'wb') as out:
            out.write(reference(path, REFERENCE_SIZE).tobytes())
"""#

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: folder.appendingPathComponent(name)))
    }

    @Test("The suite is all there: 14 broken files and 161 valid ones")
    func suiteIsComplete() {
        #expect(Self.broken.count == 14)
        #expect(Self.valid.count == 161)
        #expect(Self.valid.contains("s01i3p01.png"))
    }

    @Test("A deliberately broken file is refused as corrupt", arguments: broken)
    func brokenFileIsCorrupt(_ name: String) throws {
        let file = try Self.bytes(name)
        let error = codecError { () throws(ImageCodecError) in try thumbnail(file) }
        let refused = try #require(error, "\(name) was accepted")
        #expect(refused.isCorrupt || refused == .unrecognizedFormat, "\(name): \(refused)")
    }

    @Test("A valid file makes a thumbnail close to Pillow's", arguments: valid)
    func validFileMatchesReference(_ name: String) throws {
        let made = try thumbnail(try Self.bytes(name))
        #expect(made.format == .png)
        let decoded = try DecodedThumbnail(made.jpeg)
        #expect(decoded.width == Self.size && decoded.height == Self.size)
        let reference = try #require(try Self.references.get()[name], "no reference for \(name)")
        try #require(reference.count == decoded.pixels.count, "\(name): reference has \(reference.count) bytes")

        let difference = ImageDifference(decoded.pixels, reference, edge: Self.size)
        #expect(difference.meanAbsolute <= 4, "\(name): mean absolute difference \(difference.meanAbsolute)")
        #expect(
            difference.worstBlock <= 8,
            "\(name): a 20×20 block differs by \(difference.worstBlock) levels on average")
    }
}

/// How far two square RGB8 images are apart: overall, and in the worst 20×20 block.
struct ImageDifference {
    let meanAbsolute: Double
    let worstBlock: Double

    init(_ a: [UInt8], _ b: [UInt8], edge: Int, block: Int = 20) {
        var total = 0
        for index in a.indices { total += abs(Int(a[index]) - Int(b[index])) }
        meanAbsolute = Double(total) / Double(a.count)
        var worst = 0.0
        for top in stride(from: 0, to: edge, by: block) {
            for left in stride(from: 0, to: edge, by: block) {
                var sums = [0, 0, 0], count = 0
                for y in top..<min(edge, top + block) {
                    for x in left..<min(edge, left + block) {
                        for channel in 0..<3 {
                            let index = (y * edge + x) * 3 + channel
                            sums[channel] += Int(a[index]) - Int(b[index])
                        }
                        count += 1
                    }
                }
                for sum in sums { worst = max(worst, abs(Double(sum) / Double(count))) }
            }
        }
        worstBlock = worst
    }
}
