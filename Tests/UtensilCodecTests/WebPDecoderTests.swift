import Testing
@testable import UtensilCodec

/// WebP through libwebp: files made at test time by Debian's `cwebp` and `img2webp` (webp).
@Suite("WebP: lossy, lossless, alpha, animated")
struct WebPDecoderTests {
    static let fixtures: Result<[String: [UInt8]], any Error> = Result {
        try FixtureTool.generate(#"""
import subprocess
import phone_photos
def run(*command):
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
quadrants(320, 240).save('quadrants.png')
quadrants(2400, 1800).save('large.png')
rgba = quadrants(320, 240, colors=[(0, 0, 0, 0)] + [c + (255,) for c in QUADRANTS[1:]], mode='RGBA')
rgba.save('rgba.png')
Image.new('RGB', (320, 240), (0, 0, 0)).save('black.png')
run('/usr/bin/cwebp', '-q', '90', 'quadrants.png', '-o', 'lossy.webp')
run('/usr/bin/cwebp', '-lossless', 'quadrants.png', '-o', 'lossless.webp')
run('/usr/bin/cwebp', '-q', '90', 'large.png', '-o', 'large.webp')
run('/usr/bin/cwebp', '-q', '90', 'rgba.png', '-o', 'alpha.webp')
run('/usr/bin/cwebp', '-lossless', 'rgba.png', '-o', 'alpha-lossless.webp')
# What libwebp's own test vectors exercise and the files above do not (docs/CONFORMANCE.md):
run('/usr/bin/cwebp', '-q', '90', '-alpha_method', '0', 'rgba.png', '-o', 'alpha-uncompressed.webp')
run('/usr/bin/cwebp', '-q', '90', '-alpha_filter', 'best', '-alpha_q', '50', 'rgba.png', '-o', 'alpha-filtered.webp')
run('/usr/bin/cwebp', '-lossless', '-z', '9', 'quadrants.png', '-o', 'lossless-z9.webp')
run('/usr/bin/cwebp', '-near_lossless', '40', 'quadrants.png', '-o', 'near-lossless.webp')
run('/usr/bin/cwebp', '-q', '70', '-segments', '4', '-sns', '100', '-partition_limit', '50', '-pass', '6', 'quadrants.png', '-o', 'segments.webp')
run('/usr/bin/img2webp', '-lossy', '-q', '90', '-d', '500', 'quadrants.png', 'black.png', '-o', 'animated.webp')
phone_photos.write_webp_bomb('bomb.webp', 16384, 16384)
"""#)
    }

    static func fixture(_ name: String) throws -> [UInt8] {
        let files = try fixtures.get()
        return try #require(files[name], "fixture \(name) was not generated")
    }

    static let quads = FixtureScripts.quadrantColors
    static let whiteFirst = [RGB(255, 255, 255)] + FixtureScripts.quadrantColors.dropFirst()

    @Test("Each kind of WebP decodes to the right quadrants", arguments: [
        ("lossy.webp", quads, 320), ("lossless.webp", quads, 320), ("large.webp", quads, 2400),
        ("alpha.webp", whiteFirst, 320), ("alpha-lossless.webp", whiteFirst, 320), ("animated.webp", quads, 320),
        ("alpha-uncompressed.webp", whiteFirst, 320), ("alpha-filtered.webp", whiteFirst, 320),
        ("lossless-z9.webp", quads, 320), ("near-lossless.webp", quads, 320), ("segments.webp", quads, 320),
    ])
    func kinds(name: String, expected: [RGB], width: Int) throws {
        let made = try thumbnail(try Self.fixture(name))
        #expect(made.format == .webp)
        #expect(made.width == width && made.height == width * 3 / 4 && made.orientation == 1)
        let decoded = try DecodedThumbnail(made.jpeg)
        #expect(decoded.width == 180 && decoded.height == 180)
        for (index, (got, want)) in zip(decoded.quadrantMeans, expected).enumerated() {
            #expect(got.isClose(to: want, tolerance: 16), "\(name): quadrant \(index) is \(got), expected \(want)")
        }
    }

    @Test("The header's size is checked against maxPixels before decoding")
    func tooManyPixels() throws {
        let bomb = try Self.fixture("bomb.webp"), lossy = try Self.fixture("lossy.webp")
        #expect(codecError { () throws(ImageCodecError) in try thumbnail(bomb) } == .tooManyPixels(width: 16384, height: 16384, limit: 100_000_000))
        #expect(codecError { () throws(ImageCodecError) in try thumbnail(lossy, maxPixels: 10_000) } == .tooManyPixels(width: 320, height: 240, limit: 10_000))
    }

    @Test("The decoding cost is known from the header alone")
    func decodeCost() throws {
        func cost(_ name: String, prefix: Int? = nil) throws -> Int {
            let bytes = try Self.fixture(name)
            let part = Array(bytes.prefix(prefix ?? bytes.count))
            return try part.withUnsafeBytes { raw in
                try Result { () throws(ImageCodecError) in try ThumbnailMaker(request: ThumbnailRequest()).decodeCost(of: raw) }.get()
            } - ThumbnailMaker.decodeOverhead
        }
        // Lossy: a few macroblock rows (256 bytes a column) and the 240 × 240 centre square, RGB.
        #expect(try cost("lossy.webp") == 320 * 256 + 240 * 240 * 3)
        // Scaled by libwebp to 3 × 180 = 540 px on the way out.
        #expect(try cost("large.webp") == 2400 * 256 + 540 * 540 * 3)
        // Lossy with alpha: the whole alpha plane too, and RGBA.
        #expect(try cost("alpha.webp") == 320 * 256 + 320 * 240 + 240 * 240 * 4)
        // Lossless: the whole image as ARGB.
        #expect(try cost("lossless.webp") == 320 * 240 * 4 + 240 * 240 * 3)
        // Animated: two RGBA canvases and a frame's ARGB.
        #expect(try cost("animated.webp") == 320 * 240 * 12)
        #expect(try cost("lossy.webp", prefix: 64) == cost("lossy.webp"), "the header alone is enough")
        #expect(throws: ImageCodecError.tooManyPixels(width: 16384, height: 16384, limit: 100_000_000)) { try cost("bomb.webp") }
    }

    @Test("A WebP cut short anywhere is corrupt", arguments: ["lossy.webp", "lossless.webp", "alpha.webp", "animated.webp"])
    func truncated(name: String) throws {
        let bytes = try Self.fixture(name)
        for fraction in [0.1, 0.5, 0.9, 0.99] {
            let cut = Array(bytes.prefix(max(12, Int(Double(bytes.count) * fraction))))  // 12: still RIFF…WEBP
            let error = codecError { () throws(ImageCodecError) in try thumbnail(cut) }
            #expect(error?.isCorrupt == true, "\(name) cut at \(fraction): \(String(describing: error))")
        }
    }
}
