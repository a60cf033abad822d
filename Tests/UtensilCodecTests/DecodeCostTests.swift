import Testing
@testable import UtensilCodec

/// The memory a decode will take, read from the header alone: what the daemon budgets before
/// it decodes. The expected numbers are worked out by hand in the comments.
@Suite("Decoding cost from the header")
struct DecodeCostTests {
    static let fixtures: Result<[String: [UInt8]], any Error> = Result {
        try FixtureTool.generate(#"""
photo = quadrants(400, 300)
photo.save('baseline-444.jpg', quality=90, subsampling=0)
photo.save('progressive-420.jpg', quality=90, subsampling=2, progressive=True)
write_png('plain.png', 400, 300, 2, 8, lambda x, y: (x % 256, y % 256, 0))
write_png('adam7.png', 400, 300, 2, 8, lambda x, y: (x % 256, y % 256, 0), interlace=True)
# Headers of 10000x10000 images: the PNG's IHDR alone, and the progressive JPEG's frame
# header rewritten to that size (nothing after the headers is read).
open('huge-adam7.png', 'wb').write(b'\x89PNG\r\n\x1a\n' + png_chunk(b'IHDR', struct.pack('>IIBBBBB', 10000, 10000, 8, 0, 0, 0, 1)))
jpeg = bytearray(open('progressive-420.jpg', 'rb').read())
sof = jpeg.index(b'\xff\xc2')
jpeg[sof + 5:sof + 9] = struct.pack('>HH', 10000, 10000)
open('huge-progressive-420.jpg', 'wb').write(bytes(jpeg))
"""#)
    }

    static func cost(_ name: String, maxPixels: Int = 100_000_000, prefix: Int? = nil) throws -> Int {
        let bytes = try #require(try fixtures.get()[name], "fixture \(name)")
        let part = Array(bytes.prefix(prefix ?? bytes.count))
        let maker = ThumbnailMaker(request: ThumbnailRequest(size: 180, maxPixels: maxPixels))
        return try part.withUnsafeBytes { raw in
            try Result { () throws(ImageCodecError) in try maker.decodeCost(of: raw) }.get()
        }
    }

    @Test func anInterlacedPNGCostsItsWholeBitmapAPlainOneARow() throws {
        // 400 × 300 RGBA8 = 480,000 bytes, against one 1,600-byte row when not interlaced.
        #expect(try Self.cost("adam7.png") - Self.cost("plain.png") == 480_000 - 1_600)
        #expect(try Self.cost("plain.png") < ThumbnailMaker.decodeOverhead + 64 << 10)
        // 10000 × 10000 × 4 = 400,000,000 bytes (381 MiB), plus three 80,000-byte scanlines.
        #expect(try Self.cost("huge-adam7.png") == 400_000_000 + 240_000 + ThumbnailMaker.decodeOverhead)
    }

    @Test func aProgressiveJPEGCostsItsCoefficientsABaselineOneItsOutput() throws {
        // At 180 px, 400 × 300 decodes at the DCT scale 5/8: 250 × 188 RGB = 141,000 bytes,
        // plus strips of 250 × 64 × 3 = 48,000.
        #expect(try Self.cost("baseline-444.jpg") == 141_000 + 48_000 + ThumbnailMaker.decodeOverhead)
        // 4:2:0 coefficients, 128 bytes a block: Y 50 × 38 blocks, Cb and Cr 25 × 19 each.
        #expect(try Self.cost("progressive-420.jpg") == 141_000 + 48_000 + (1_900 + 2 * 475) * 128 + ThumbnailMaker.decodeOverhead)
        // 10000 × 10000 at 1/8 (1250 × 1250 RGB = 4,687,500 bytes, strips 240,000), with
        // Y 1250 × 1250 and Cb, Cr 625 × 625 blocks: 300,000,000 bytes (286 MiB) of coefficients.
        #expect(try Self.cost("huge-progressive-420.jpg") == 4_687_500 + 240_000 + 300_000_000 + ThumbnailMaker.decodeOverhead)
    }

    @Test func theHeaderAloneIsEnough() throws {
        for name in ["adam7.png", "progressive-420.jpg", "baseline-444.jpg"] {
            #expect(try Self.cost(name, prefix: 2048) == Self.cost(name), "\(name)")
        }
    }

    @Test func theCostIsRefusedAsTheDecodeWouldBe() throws {
        #expect(throws: ImageCodecError.tooManyPixels(width: 10000, height: 10000, limit: 1_000_000)) {
            try Self.cost("huge-adam7.png", maxPixels: 1_000_000)
        }
        #expect(throws: ImageCodecError.unrecognizedFormat) {
            try [UInt8]("not an image".utf8).withUnsafeBytes { raw in
                try Result { () throws(ImageCodecError) in try ThumbnailMaker(request: ThumbnailRequest()).decodeCost(of: raw) }.get()
            }
        }
    }
}
