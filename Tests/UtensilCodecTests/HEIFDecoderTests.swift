import Testing
@testable import UtensilCodec

/// HEIC and AVIF through libheif: files made at test time by Debian's `heif-enc`
/// (libheif-examples), and by `Tests/Fixtures/phone_photos.py` for what heif-enc cannot write
/// (a rotation, an EXIF orientation beside it, a grid of tiles, a thumbnail item; and what the
/// HEIF conformance suite showed our own fixtures lacked: mirroring, a clean aperture, a derived
/// `iden` image, an auxiliary depth map, an item without data, an image sequence).
@Suite("HEIC and AVIF: rotation, grids, 10-bit, alpha, thumbnail items")
struct HEIFDecoderTests {
    static let fixtures: Result<[String: [UInt8]], any Error> = Result {
        try FixtureTool.generate(#"""
import subprocess
import phone_photos as heif
W, H = 320, 240
shown = quadrants(W, H)
def enc(source, out, *options):
    speed = ['-p', 'speed=9'] if '--avif' in options else ['-p', 'preset=ultrafast']
    subprocess.run(['/usr/bin/heif-enc', '-q', '90', *speed, *options, source, '-o', out], check=True, stdout=subprocess.DEVNULL)
shown.save('quadrants.png')
enc('quadrants.png', 'plain.heic')
enc('quadrants.png', 'plain.avif', '--avif')
for turns, exif in ((1, 8), (2, 3), (3, 6)):
    heif.write_heic_displayed('irot%d.heic' % turns, shown, turns, exif_orientation=exif)
heif.write_heic('exif6-only.heic', shown, exif_orientation=6)
heif.write_heic('grid.heic', quadrants(W - 3, H - 1), grid=(3, 2))
write_png('deep.png', W, H, 2, 16, lambda x, y: tuple(c * 257 for c in QUADRANTS[quadrant_index(x, y, W, H)]))
enc('deep.png', 'ten-bit.heic', '-b', '10')
rgba = quadrants(W, H, colors=[(0, 0, 0, 0)] + [c + (255,) for c in QUADRANTS[1:]], mode='RGBA')
rgba.save('rgba.png')
enc('rgba.png', 'alpha.heic')
heif.write_heic('with-thumbnail.heic', quadrants(640, 480), thumbnail=Image.new('RGB', (320, 240), (0, 200, 0)))
heif.write_heic_bomb('bomb.heic', 40000, 40000)
heif.write_heic('imir0.heic', shown, imir=0)
heif.write_heic('imir1.heic', shown, imir=1)
heif.write_heic('clap.heic', shown, clap=(160, 120))
heif.write_heic('iden-irot.heic', shown, identity=True, irot=1)
heif.write_heic('depth.heic', shown, depth=Image.new('RGB', (W, H), (128, 128, 128)))
heif.write_heic('no-data.heic', shown, no_data=True)
heif.write_heif_sequence('sequence.heic')
heif.write_heif_liar('lying.heic', 4096)
heif.write_heif_liar('lying.avif', 4096, avif=True)
heif.write_heif_liar('honest-edge.heic', 300, 300)
"""#)
    }

    static func fixture(_ name: String) throws -> [UInt8] {
        let files = try fixtures.get()
        return try #require(files[name], "fixture \(name) was not generated")
    }

    static let quads = FixtureScripts.quadrantColors

    @Test("HEIC and AVIF decode to the right quadrants at the photo's size", arguments: ["plain.heic", "plain.avif"])
    func plain(name: String) throws {
        let made = try thumbnail(try Self.fixture(name))
        #expect(made.format == (name.hasSuffix(".avif") ? .avif : .heic))
        #expect(made.width == 320 && made.height == 240 && made.orientation == 1)
        try expectQuadrants(made, Self.quads, name)
    }

    @Test("irot turns the photo upright, and the EXIF orientation beside it is not applied again", arguments: [1, 2, 3])
    func rotation(turns: Int) throws {
        let made = try thumbnail(try Self.fixture("irot\(turns).heic"))
        #expect(made.width == 320 && made.height == 240, "displayed size, after the rotation")
        #expect(made.orientation == 1, "libheif applied the rotation; nothing is left for EXIF")
        try expectQuadrants(made, Self.quads, "irot \(turns)")
    }

    @Test("An EXIF orientation without irot is ignored, as the HEIF rules say")
    func exifAlone() throws {
        let made = try thumbnail(try Self.fixture("exif6-only.heic"))
        #expect(made.width == 320 && made.height == 240)
        try expectQuadrants(made, Self.quads, "EXIF 6 alone")
    }

    @Test("A grid of 3 × 2 tiles, cropped to an odd size, is one photo")
    func grid() throws {
        let made = try thumbnail(try Self.fixture("grid.heic"))
        #expect(made.width == 317 && made.height == 239)
        try expectQuadrants(made, Self.quads, "grid")
    }

    /// libheif 1.15 reads `imir` axis 0 as top ↔ bottom and 1 as left ↔ right (the 2017 text of
    /// the HEIF standard says "vertical axis" for 0; readers differ: docs/CONFORMANCE.md).
    @Test("Lossless transforms: a mirroring, a clean aperture, a derived iden image turned by irot")
    func losslessTransforms() throws {
        let q = Self.quads
        let cases: [(String, Int, Int, [RGB])] = [
            ("imir0.heic", 320, 240, [q[2], q[3], q[0], q[1]]),
            ("imir1.heic", 320, 240, [q[1], q[0], q[3], q[2]]),
            ("clap.heic", 160, 120, q),
            ("iden-irot.heic", 240, 320, [q[1], q[3], q[0], q[2]]),
        ]
        for (name, width, height, expected) in cases {
            let made = try thumbnail(try Self.fixture(name))
            #expect(made.width == width && made.height == height, "\(name): \(made.width)×\(made.height)")
            try expectQuadrants(made, expected, name)
        }
    }

    @Test("An auxiliary depth map is not the photo")
    func depthMap() throws {
        try expectQuadrants(try thumbnail(try Self.fixture("depth.heic")), Self.quads, "with a depth map")
    }

    @Test("A primary item without data is corrupt; an image sequence is a format utensild does not read")
    func noStillImage() throws {
        let noData = try Self.fixture("no-data.heic"), sequenceFile = try Self.fixture("sequence.heic")
        let empty = codecError { () throws(ImageCodecError) in try thumbnail(noData) }
        #expect(empty?.isCorrupt == true, "\(String(describing: empty))")
        let sequence = codecError { () throws(ImageCodecError) in try thumbnail(sequenceFile) }
        #expect(sequence?.isUnsupported == true || sequence == .unrecognizedFormat, "\(String(describing: sequence))")
    }

    @Test("A 10-bit HEIC comes out right")
    func tenBit() throws {
        try expectQuadrants(try thumbnail(try Self.fixture("ten-bit.heic")), Self.quads, "10-bit")
    }

    @Test("An alpha plane is composited on white")
    func alpha() throws {
        try expectQuadrants(
            try thumbnail(try Self.fixture("alpha.heic")), [RGB(255, 255, 255)] + Self.quads.dropFirst(), "alpha")
    }

    @Test("The file's thumbnail item is used when it covers the thumbnail, and only then")
    func thumbnailItem() throws {
        let bytes = try Self.fixture("with-thumbnail.heic")
        // The thumbnail item (320 × 240, all green) covers 180 px: it is what gets decoded.
        let small = try thumbnail(bytes, size: 180)
        #expect(small.width == 640 && small.height == 480, "the size is the photo's, not the thumbnail item's")
        try expectQuadrants(small, Array(repeating: RGB(0, 200, 0), count: 4), "from the thumbnail item")
        // At 256 px it is too small: the photo itself is decoded.
        try expectQuadrants(try thumbnail(bytes, size: 256), Self.quads, "from the photo", side: 256)
    }

    @Test("The header's size is checked against maxPixels before decoding")
    func tooManyPixels() throws {
        let bomb = try Self.fixture("bomb.heic")
        #expect(codecError { () throws(ImageCodecError) in try thumbnail(bomb) } == .tooManyPixels(width: 40000, height: 40000, limit: 100_000_000))
        let plain = try Self.fixture("plain.heic")
        #expect(codecError { () throws(ImageCodecError) in try thumbnail(plain, maxPixels: 10_000) } == .tooManyPixels(width: 320, height: 240, limit: 10_000))
    }

    @Test("A stream coded larger than its size box declares is corrupt, refused before it is decoded", arguments: ["lying.heic", "lying.avif"])
    func lyingSizeBox(name: String) throws {
        let bytes = try Self.fixture(name)
        let error = codecError { () throws(ImageCodecError) in try thumbnail(bytes) }
        guard case .corrupt(let detail) = error else {
            Issue.record("\(name): \(String(describing: error)), expected corrupt")
            return
        }
        #expect(detail.contains("4096×4096") && detail.contains("300×300"), "\(name): \(detail)")
        // The budget it was given is the declared size's, 300 × 300.
        let cost = try bytes.withUnsafeBytes { raw in
            try Result { () throws(ImageCodecError) in try ThumbnailMaker(request: ThumbnailRequest(size: 180)).decodeCost(of: raw) }.get()
        }
        #expect(cost < 300 * 300 * 12 + ThumbnailMaker.decodeOverhead)
    }

    @Test("A stream coded at exactly its declared size, not a multiple of the coding block, decodes")
    func honestOddSize() throws {
        let made = try thumbnail(try Self.fixture("honest-edge.heic"))
        #expect(made.width == 300 && made.height == 300)
    }

    @Test("The decoding cost is known from the header: the decoded image, or the thumbnail item used instead")
    func decodeCost() throws {
        func cost(_ name: String, size: Int = 180) throws -> Int {
            let bytes = try Self.fixture(name)
            let maker = ThumbnailMaker(request: ThumbnailRequest(size: size))
            return try bytes.withUnsafeBytes { raw in
                try Result { () throws(ImageCodecError) in try maker.decodeCost(of: raw) }.get()
            } - ThumbnailMaker.decodeOverhead
        }
        // 8-bit 4:2:0: two copies of the planes (3 bytes a pixel) and the RGB result (3).
        #expect(try cost("plain.heic") == 320 * 240 * 6)
        // With alpha: the alpha planes likewise (3) and RGBA (4) instead of RGB.
        #expect(try cost("alpha.heic") == 320 * 240 * 10)
        // 10-bit: 16-bit samples (6), the 8-bit conversion (3), RGB (3).
        #expect(try cost("ten-bit.heic") == 320 * 240 * 12)
        // The 320 × 240 thumbnail item is what a 180 px thumbnail decodes; the 640 × 480 photo at 256 px.
        #expect(try cost("with-thumbnail.heic") == 320 * 240 * 6)
        #expect(try cost("with-thumbnail.heic", size: 256) == 640 * 480 * 6)
        #expect(throws: ImageCodecError.tooManyPixels(width: 40000, height: 40000, limit: 100_000_000)) { try cost("bomb.heic") }
    }

    @Test("A HEIC cut short anywhere is corrupt, never a crash or a half-grey thumbnail")
    func truncated() throws {
        for name in ["plain.heic", "grid.heic", "plain.avif"] {
            let bytes = try Self.fixture(name)
            for fraction in [0.1, 0.3, 0.5, 0.8, 0.95, 0.99] {
                let cut = Array(bytes.prefix(Int(Double(bytes.count) * fraction)))
                let error = codecError { () throws(ImageCodecError) in try thumbnail(cut) }
                #expect(error?.isCorrupt == true, "\(name) cut at \(fraction): \(String(describing: error))")
            }
        }
    }

    private func expectQuadrants(_ made: Thumbnail, _ expected: [RGB], _ label: String, side: Int = 180) throws {
        let decoded = try DecodedThumbnail(made.jpeg)
        #expect(decoded.width == side && decoded.height == side)
        for (index, (got, want)) in zip(decoded.quadrantMeans, expected).enumerated() {
            #expect(got.isClose(to: want, tolerance: 16), "\(label): quadrant \(index) is \(got), expected \(want)")
        }
    }
}
