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
            // Stored 1,500 × 1,125 and turned by EXIF 6, whose mirrored side is odd: its last
            // row goes, so that each chroma sample of the planes stays on its 2 × 2 luma block.
            ("exif6.jpg", 1124, 1500), ("panorama.jpg", 1500, 200), ("cmyk.jpg", 1600, 1200),
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

    @Test("A 4:2:0 JPEG's decode stays in its planes (no colour conversion) and is the preview; CMYK is converted")
    func planes() throws {
        func storage(_ name: String) throws -> DecodedPreview.Storage {
            let decoder = JPEGDecoder(size: 180, maxPixels: .max, previewSide: 1600)
            let decoded = try Self.fixture(name).withUnsafeBytes { bytes in
                Result { () throws(ImageCodecError) in try decoder.decode(bytes) }
            }.get()
            return try #require(decoded.preview).storage
        }
        guard case .planes(let planes) = try storage("landscape.jpg") else {
            Issue.record("landscape.jpg was converted to RGB")
            return
        }
        #expect((planes.width, planes.height) == (1500, 1125))
        guard case .planes = try storage("exif6.jpg"), case .rgb = try storage("cmyk.jpg") else {
            Issue.record("exif6.jpg should stay in planes, cmyk.jpg be converted")
            return
        }
    }

    @Test("Planes stood upright: every orientation moves the quadrants as the RGB transform does", arguments: 1...8)
    func orientedPlanes(orientation: Int) throws {
        // A 7 × 5 image (odd sides) of distinct luma values, chroma per 2 × 2 block.
        var planes = YUV420Planes(width: 7, height: 5)
        for index in planes.luma.indices { planes.luma[index] = UInt8(index % 251) }
        for index in planes.blue.indices { planes.blue[index] = UInt8(100 + index) }
        planes.red = planes.blue
        let transform = try #require(Orientation(rawValue: orientation))
        let upright = planes.oriented(transform)
        // Compare with the RGB transform of the same pixels, cut to even where a side is mirrored.
        let cut = upright.width * upright.height
        #expect(cut >= (7 - 1) * (5 - 1))
        let (width, height) = transform.swapsAxes ? (upright.height, upright.width) : (upright.width, upright.height)
        var source = YUV420Planes(width: width, height: height)
        for y in 0..<source.lumaHeight {
            for x in 0..<source.lumaWidth { source.luma[y * source.lumaWidth + x] = planes.luma[y * planes.lumaWidth + x] }
        }
        for y in 0..<source.chromaHeight {
            for x in 0..<source.chromaWidth {
                source.blue[y * source.chromaWidth + x] = planes.blue[y * planes.chromaWidth + x]
            }
        }
        source.red = source.blue
        let mirroredX = [2, 3, 7, 8].contains(orientation), mirroredY = [3, 4, 6, 7].contains(orientation)
        if !mirroredX { #expect(width == 7) }
        if !mirroredY { #expect(height == 5) }
        let expected = transform.apply(to: source.rgb(), width: width, height: height)
        #expect(upright.rgb() == expected)
    }

    @Test("Half-resolution rows, eight pixels at a time, are bit for bit the pixel-by-pixel conversion")
    func halfResolutionRowsMatchEachPixel() {
        var planes = YUV420Planes(width: 45, height: 9)  // 23 half-resolution columns: two blocks of 8 and a tail
        // Every luma value, scattered; chroma across its range and at both ends, so that every
        // clamp is reached.
        for index in planes.luma.indices { planes.luma[index] = UInt8((index * 73 + 19) % 256) }
        for index in planes.blue.indices {
            planes.blue[index] = index % 5 == 0 ? 0 : UInt8((index * 151 + 7) % 256)
            planes.red[index] = index % 7 == 0 ? 255 : UInt8((index * 97 + 201) % 256)
        }
        planes.withView { view in
            for columns in [0..<planes.chromaWidth, 3..<20, 5..<13, 7..<8, 0..<0] {
                for row in 0..<planes.chromaHeight {
                    var rgb = [UInt8](repeating: 0, count: columns.count * 3)
                    rgb.withUnsafeMutableBufferPointer { view.halfResolutionRow(row, columns: columns, into: $0) }
                    let expected = columns.flatMap { x in
                        let (r, g, b) = view.halfResolutionPixel(x, row: row)
                        return [r, g, b]
                    }
                    #expect(rgb == expected, "row \(row), columns \(columns)")
                }
            }
        }
    }

    @Test("Planes held elsewhere, rows padded and each plane with its own stride, read as packed planes do")
    func stridedPlanesReadAsPackedOnes() throws {
        var planes = YUV420Planes(width: 38, height: 10)
        for index in planes.luma.indices { planes.luma[index] = UInt8((index * 31 + 5) % 256) }
        for index in planes.blue.indices {
            planes.blue[index] = UInt8((index * 59 + 3) % 256)
            planes.red[index] = UInt8((index * 83 + 11) % 256)
        }
        // The same samples as libheif may hold them: rows padded to other strides.
        func padded(_ plane: [UInt8], width: Int, height: Int, stride: Int) -> [UInt8] {
            (0..<height).flatMap { row in plane[(row * width)..<(row * width + width)] + [UInt8](repeating: 0xEE, count: stride - width) }
        }
        let luma = padded(planes.luma, width: planes.lumaWidth, height: planes.lumaHeight, stride: 64)
        let blue = padded(planes.blue, width: planes.chromaWidth, height: planes.chromaHeight, stride: 32)
        let red = planes.red  // unpadded: its rows are its width apart
        let expected: [[UInt8]] = planes.withView { view in
            (0..<view.halfHeight).map { row in
                var rgb = [UInt8](repeating: 0, count: view.halfWidth * 3)
                rgb.withUnsafeMutableBufferPointer { view.halfResolutionRow(row, columns: 0..<view.halfWidth, into: $0) }
                return rgb
            }
        }
        let rows: [[UInt8]]? = luma.withUnsafeBytes { luma in
            blue.withUnsafeBytes { blue in
                red.withUnsafeBytes { red in
                    #expect(YUV420PlaneView(
                        luma: luma, lumaStride: 64, blue: blue, blueStride: 32, red: red, redStride: planes.chromaWidth,
                        halfWidth: planes.chromaWidth + 1, halfHeight: planes.chromaHeight) == nil,
                        "a half-resolution size the planes do not hold is refused (the red plane's rows are 19 wide)")
                    #expect(YUV420PlaneView(
                        luma: luma, lumaStride: 64, blue: blue, blueStride: 32, red: red, redStride: planes.chromaWidth,
                        halfWidth: planes.chromaWidth, halfHeight: planes.chromaHeight + 1) == nil)
                    guard let view = YUV420PlaneView(
                        luma: luma, lumaStride: 64, blue: blue, blueStride: 32, red: red, redStride: planes.chromaWidth,
                        halfWidth: planes.chromaWidth, halfHeight: planes.chromaHeight)
                    else { return nil }
                    return (0..<view.halfHeight).map { row in
                        var rgb = [UInt8](repeating: 0, count: view.halfWidth * 3)
                        rgb.withUnsafeMutableBufferPointer { view.halfResolutionRow(row, columns: 0..<view.halfWidth, into: $0) }
                        return rgb
                    }
                }
            }
        }
        #expect(try #require(rows, "the padded planes hold the half-resolution image") == expected)
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
        // The decode at 6/8 is the preview, plus libjpeg's output buffer for it.
        #expect(try cost(1600) >= cost(0) + 1500 * 1125 * 3 + 1500 * 1125 * 3 / 2)
    }
}
