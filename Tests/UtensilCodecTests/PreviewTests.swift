import Testing
@testable import UtensilCodec

/// The display-size preview made from the same decode as the thumbnail: the whole photo as
/// displayed, its long side at most the asked size (never enlarged), in every format; a
/// JPEG's is its decode at the largest DCT scale that fits (no resampling).
@Suite("The preview: long side, aspect, orientation, every format")
struct PreviewTests {
    static let fixtures: Result<[String: [UInt8]], any Error> = Result {
        try FixtureTool.generate(#"""
import subprocess
def run(*command):
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
quadrants(2000, 1500).save('landscape.jpg', quality=92)
quadrants(2000, 1500).save('landscape.png')
quadrants(1500, 2000).save('portrait.png')
quadrants(640, 480).save('small.jpg', quality=92)
quadrants(3000, 400).save('panorama.jpg', quality=92)
save_oriented(quadrants(1500, 2000), 'exif6.jpg', 6, quality=92)
quadrants(2000, 1500).convert('CMYK').save('cmyk.jpg', quality=92)
run('/usr/bin/heif-enc', '-q', '90', '-p', 'preset=ultrafast', 'landscape.png', '-o', 'landscape.heic')
run('/usr/bin/cwebp', '-q', '90', 'landscape.png', '-o', 'landscape.webp')
run('/usr/bin/cwebp', '-lossless', 'portrait.png', '-o', 'portrait.webp')
"""#)
    }

    static func fixture(_ name: String) throws -> [UInt8] {
        try #require(try fixtures.get()[name], "fixture \(name)")
    }

    /// Decodes a preview JPEG whole, at its own size.
    struct DecodedPreviewImage {
        let width: Int
        let height: Int
        let pixels: [UInt8]

        init(_ jpeg: [UInt8]) throws {
            let header = try jpeg.withUnsafeBytes { bytes in
                Result { () throws(ImageCodecError) in try JPEGDecoder(size: 1, maxPixels: .max).decode(bytes) }
            }.get()
            let side = max(header.storedWidth, header.storedHeight)
            let whole = try jpeg.withUnsafeBytes { bytes in
                Result { () throws(ImageCodecError) in
                    try JPEGDecoder(size: 1, maxPixels: .max, previewSide: side).decode(bytes)
                }
            }.get()
            let preview = try #require(whole.preview)
            (width, height, pixels) = (preview.width, preview.height, preview.pixels)
        }

        /// The colour at the centre of each quadrant: top-left, top-right, bottom-left, bottom-right.
        var quadrantCentres: [RGB] {
            [(1, 1), (3, 1), (1, 3), (3, 3)].map { column, row in
                let offset = ((height * row / 4) * width + width * column / 4) * 3
                return RGB(Int(pixels[offset]), Int(pixels[offset + 1]), Int(pixels[offset + 2]))
            }
        }
    }

    func made(_ name: String, longSide: Int = 1600) throws -> Thumbnail {
        let maker = ThumbnailMaker(request: ThumbnailRequest(previewLongSide: longSide))
        return try Self.fixture(name).withUnsafeBytes { bytes in
            Result { () throws(ImageCodecError) in try maker.makeThumbnail(from: bytes) }
        }.get()
    }

    @Test(
        "The long side is 1,600 px (a JPEG's: 6/8 of 2,000), the aspect the photo's, the quadrants where they are shown",
        arguments: [
            ("landscape.jpg", 1500, 1125), ("landscape.png", 1600, 1200), ("landscape.heic", 1600, 1200),
            ("landscape.webp", 1600, 1200), ("portrait.png", 1200, 1600), ("portrait.webp", 1200, 1600),
            ("exif6.jpg", 1125, 1500), ("panorama.jpg", 1500, 200), ("cmyk.jpg", 1600, 1200),
        ])
    func longSide(name: String, width: Int, height: Int) throws {
        let thumbnail = try made(name)
        let preview = try #require(thumbnail.preview, "\(name) made no preview")
        #expect((preview.width, preview.height) == (width, height), "\(name)")
        let decoded = try DecodedPreviewImage(preview.jpeg)
        #expect((decoded.width, decoded.height) == (width, height), "\(name): the JPEG's own size")
        for (seen, expected) in zip(decoded.quadrantCentres, FixtureScripts.quadrantColors) {
            #expect(seen.isClose(to: expected), "\(name): \(decoded.quadrantCentres)")
        }
        // The thumbnail made from the same decode is still the 180 px centre square.
        let square = try DecodedThumbnail(thumbnail.jpeg)
        #expect((square.width, square.height) == (180, 180), "\(name)")
    }

    @Test("A photo smaller than the long side keeps its size: never enlarged")
    func notEnlarged() throws {
        let preview = try #require(try made("small.jpg").preview)
        #expect((preview.width, preview.height) == (640, 480))
    }

    @Test("Another long side is honoured; none is made when it is 0")
    func otherSizes() throws {
        let preview = try #require(try made("landscape.png", longSide: 800).preview)
        #expect((preview.width, preview.height) == (800, 600))
        #expect(try made("landscape.jpg", longSide: 0).preview == nil)
    }

    @Test("Asking for a preview counts its memory in the decode cost")
    func decodeCost() throws {
        let bytes = try Self.fixture("landscape.jpg")
        func cost(_ longSide: Int) throws -> Int {
            let maker = ThumbnailMaker(request: ThumbnailRequest(previewLongSide: longSide))
            return try bytes.withUnsafeBytes { raw in
                Result { () throws(ImageCodecError) in try maker.decodeCost(of: raw) }
            }.get()
        }
        #expect(try cost(1600) >= cost(0) + 1500 * 1125 * 3 * 3)
    }
}
