import Testing
@testable import UtensilCodec

@Suite("JPEG variants: CMYK, grey, progressive, tiny, harmless warnings, unsupported precision")
struct JPEGVariantTests {
    static let fixtures: Result<[String: [UInt8]], any Error> = Result {
        try FixtureTool.generate(#"""
# CMYK as Photoshop writes it: Pillow stores inverted CMYK (YCCK) behind an Adobe APP14 marker.
inks = [(0, 255, 255, 0), (255, 0, 255, 0), (255, 255, 0, 0), (0, 0, 0, 128)]
quadrants(64, 64, colors=inks, mode='CMYK').save('cmyk.jpg', quality=95)
assert b'Adobe' in open('cmyk.jpg', 'rb').read()
quadrants(64, 64, colors=[0, 85, 170, 255], mode='L').save('grey.jpg', quality=95)
quadrants(640, 480).save('progressive.jpg', quality=95, progressive=True)
quadrants(640, 480).save('baseline.jpg', quality=95)
Image.new('RGB', (1, 1), (200, 30, 40)).save('one.jpg', quality=95)
Image.new('RGB', (1, 1), (200, 30, 40)).save('one.png')
tall = Image.new('RGB', (3, 200), (220, 30, 30))
tall.paste((30, 60, 220), (0, 90, 3, 110))
tall.save('tall.jpg', quality=95)
tall.save('tall.png')
tall.transpose(Image.ROTATE_90).save('wide.png')
quadrants(20, 20).save('twenty.png')
"""#)
    }

    static func fixture(_ name: String) throws -> [UInt8] {
        try #require(try fixtures.get()[name], "fixture \(name)")
    }

    @Test("Adobe CMYK/YCCK JPEG: colours right, not inverted")
    func cmyk() throws {
        let decoded = try DecodedThumbnail(try thumbnail(try Self.fixture("cmyk.jpg")).jpeg)
        let expected = [RGB(255, 0, 0), RGB(0, 255, 0), RGB(0, 0, 255), RGB(127, 127, 127)]
        for (quadrant, (seen, wanted)) in zip(decoded.quadrantMeans, expected).enumerated() {
            #expect(seen.isClose(to: wanted, tolerance: 16), "quadrant \(quadrant): \(seen), expected \(wanted)")
        }
    }

    @Test("CMYK conversion, inverted (Adobe) and plain")
    func cmykConversion() {
        let cmyk: [UInt8] = [0, 255, 255, 0, 255, 0, 0, 255]
        var rgb = [UInt8](repeating: 0, count: 6)
        cmyk.withUnsafeBufferPointer { source in
            rgb.withUnsafeMutableBufferPointer { CMYKConversion.convert(source, into: $0, pixelCount: 2, inverted: false) }
        }
        #expect(rgb == [255, 0, 0, 0, 0, 0])
        cmyk.withUnsafeBufferPointer { source in
            rgb.withUnsafeMutableBufferPointer { CMYKConversion.convert(source, into: $0, pixelCount: 2, inverted: true) }
        }
        #expect(rgb == [0, 0, 0, 255, 0, 0])
    }

    @Test("Greyscale JPEG")
    func grey() throws {
        let decoded = try DecodedThumbnail(try thumbnail(try Self.fixture("grey.jpg")).jpeg)
        let expected = [RGB(0, 0, 0), RGB(85, 85, 85), RGB(170, 170, 170), RGB(255, 255, 255)]
        for (seen, wanted) in zip(decoded.quadrantMeans, expected) { #expect(seen.isClose(to: wanted), "\(seen)") }
    }

    @Test("Progressive JPEG decodes like the baseline one")
    func progressive() throws {
        for name in ["progressive.jpg", "baseline.jpg"] {
            let made = try thumbnail(try Self.fixture(name))
            #expect(made.width == 640 && made.height == 480)
            let decoded = try DecodedThumbnail(made.jpeg)
            for (seen, wanted) in zip(decoded.quadrantMeans, FixtureScripts.quadrantColors) {
                #expect(seen.isClose(to: wanted), "\(name): \(seen)")
            }
        }
    }

    @Test("A 1×1 image is upscaled to a uniform thumbnail", arguments: ["one.jpg", "one.png"])
    func onePixel(name: String) throws {
        let made = try thumbnail(try Self.fixture(name))
        #expect(made.width == 1 && made.height == 1)
        let decoded = try DecodedThumbnail(made.jpeg)
        #expect(decoded.width == 180 && decoded.height == 180)
        for (x, y) in [(2, 2), (90, 90), (177, 177), (2, 177)] {
            #expect(decoded.mean(atX: x, y: y, edge: 4).isClose(to: RGB(200, 30, 40)))
        }
    }

    @Test("3×200 and 200×3 keep their centre square", arguments: ["tall.jpg", "tall.png", "wide.png"])
    func thinImages(name: String) throws {
        let made = try thumbnail(try Self.fixture(name))
        #expect(name == "wide.png" ? (made.width, made.height) == (200, 3) : (made.width, made.height) == (3, 200))
        let decoded = try DecodedThumbnail(made.jpeg)
        #expect(decoded.overallMean.isClose(to: RGB(30, 60, 220)), "\(decoded.overallMean)")
    }

    @Test("A 20×20 image is upscaled smoothly (bilinear), keeping its quadrants")
    func twenty() throws {
        let decoded = try DecodedThumbnail(try thumbnail(try Self.fixture("twenty.png")).jpeg)
        for (seen, wanted) in zip(decoded.quadrantMeans, FixtureScripts.quadrantColors) {
            #expect(seen.isClose(to: wanted), "\(seen)")
        }
        // Between two quadrants the colour blends over a few pixels rather than stepping.
        let left = decoded.mean(atX: 80, y: 45, edge: 2), right = decoded.mean(atX: 99, y: 45, edge: 2)
        let middle = decoded.mean(atX: 90, y: 45, edge: 2)
        #expect(middle.r < left.r - 20 && middle.r > right.r + 20, "\(left) \(middle) \(right)")
    }

    /// `bytes` with `extra` inserted before the first occurrence of `marker` (after SOI).
    static func inserting(_ extra: [UInt8], before marker: UInt8, in bytes: [UInt8]) throws -> [UInt8] {
        let index = try #require((2..<bytes.count - 1).first { bytes[$0] == 0xFF && bytes[$0 + 1] == marker })
        return Array(bytes[..<index]) + extra + Array(bytes[index...])
    }

    @Test("Harmless warnings (stray bytes before a marker, trailing data) are not corruption")
    func harmlessWarnings() throws {
        let original = try Self.fixture("baseline.jpg")
        let beforeEOI = Array(original.dropLast(2)) + [0x12, 0x34, 0x56] + [0xFF, 0xD9]
        let beforeHeader = try Self.inserting([0x00, 0x01, 0x02], before: 0xC0, in: original)
        let trailing = original + Array(repeating: 0x42, count: 100)
        for bytes in [beforeEOI, beforeHeader, trailing] {
            let decoded = try DecodedThumbnail(try thumbnail(bytes).jpeg)
            #expect(decoded.quadrantMeans[0].isClose(to: FixtureScripts.quadrantColors[0]))
        }
    }

    /// The offset of the SOF segment's precision byte.
    static func framePrecisionOffset(_ bytes: [UInt8]) throws -> Int {
        try #require((2..<bytes.count - 1).first { bytes[$0] == 0xFF && [0xC0, 0xC2].contains(bytes[$0 + 1]) }) + 4
    }

    @Test("12-bit, lossless and hierarchical JPEGs are unsupported, not corrupt")
    func unsupportedVariants() throws {
        let original = try Self.fixture("baseline.jpg")
        let precision = try Self.framePrecisionOffset(original)
        var twelveBit = original
        twelveBit[precision] = 12
        var lossless = original
        lossless[precision - 3] = 0xC3
        var hierarchical = original
        hierarchical[precision - 3] = 0xC5
        for bytes in [twelveBit, lossless, hierarchical] {
            let error = codecError { () throws(ImageCodecError) in try thumbnail(bytes) }
            #expect(error?.isUnsupported == true, "\(String(describing: error))")
        }
    }
}
