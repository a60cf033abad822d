import Testing
@testable import UtensilCodec

/// The grid square made from the preview's decode: 540 × 540, the thumbnail's crop and
/// orientation, in every format and along every path (a JPEG's planes at half and at full
/// resolution, RGB decodes, HEIF, WebP).
@Suite("The grid square: size, the thumbnail's crop, EXIF orientation, every format")
struct GridSquareTests {
    /// Photos whose red rises left to right and green top to bottom (as displayed), so that a
    /// crop or a turn off by a little shows in the colours.
    static let fixtures: Result<[String: [UInt8]], any Error> = Result {
        try FixtureTool.generate(#"""
import subprocess
import numpy as np
def gradient(width, height):
    x = np.linspace(0, 255, width)[None, :].repeat(height, 0)
    y = np.linspace(0, 255, height)[:, None].repeat(width, 1)
    return Image.fromarray(np.stack([x, y, np.full((height, width), 128.0)], -1).round().astype('uint8'))
def run(*command):
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
gradient(2000, 1500).save('landscape.jpg', quality=95)
gradient(1600, 1000).save('planes-full.jpg', quality=95)
gradient(2000, 1500).save('landscape.png')
gradient(1500, 2000).save('portrait.png')
gradient(640, 480).save('small.jpg', quality=95)
for orientation in range(1, 9):
    save_oriented(gradient(2000, 1500), 'exif%d.jpg' % orientation, orientation, quality=95)
run('/usr/bin/heif-enc', '-q', '95', '-p', 'preset=ultrafast', 'landscape.png', '-o', 'landscape.heic')
run('/usr/bin/cwebp', '-q', '95', 'landscape.png', '-o', 'landscape.webp')
"""#)
    }

    static func fixture(_ name: String) throws -> [UInt8] {
        try #require(try fixtures.get()[name], "fixture \(name)")
    }

    static let request = ThumbnailRequest(
        previewLongSide: ThumbnailRequest.defaultPreviewLongSide, squareSide: ThumbnailRequest.defaultSquareSide)

    func made(_ name: String, request: ThumbnailRequest = Self.request) throws -> Thumbnail {
        let maker = ThumbnailMaker(request: request)
        return try Self.fixture(name).withUnsafeBytes { bytes in
            Result { () throws(ImageCodecError) in try maker.makeThumbnail(from: bytes) }
        }.get()
    }

    /// The colour the displayed gradient `width` × `height` has at (`x`, `y`).
    static func gradient(width: Int, height: Int, x: Double, y: Double) -> RGB {
        RGB(Int((x / Double(width - 1) * 255).rounded()), Int((y / Double(height - 1) * 255).rounded()), 128)
    }

    /// The mean absolute difference, per channel, between the 180 px thumbnail and the square
    /// averaged down by 3 × 3 blocks to the same size.
    static func difference(square: DecodedThumbnail, thumbnail: DecodedThumbnail) -> Double {
        var total = 0
        for y in 0..<180 {
            for x in 0..<180 {
                for channel in 0..<3 {
                    var sum = 0
                    for dy in 0..<3 {
                        for dx in 0..<3 { sum += Int(square.pixels[((3 * y + dy) * 540 + 3 * x + dx) * 3 + channel]) }
                    }
                    total += abs((sum + 4) / 9 - Int(thumbnail.pixels[(y * 180 + x) * 3 + channel]))
                }
            }
        }
        return Double(total) / Double(180 * 180 * 3)
    }

    @Test(
        "540 × 540 baseline JPEG, the thumbnail's crop at three times its size",
        arguments: [
            ("landscape.jpg", 2000, 1500), ("planes-full.jpg", 1600, 1000), ("landscape.png", 2000, 1500),
            ("portrait.png", 1500, 2000), ("small.jpg", 640, 480), ("landscape.heic", 2000, 1500),
            ("landscape.webp", 2000, 1500),
        ])
    func sameCropAsTheThumbnail(name: String, width: Int, height: Int) throws {
        let made = try made(name)
        let square = try DecodedThumbnail(try #require(made.square, "\(name) made no grid square"))
        #expect((square.width, square.height) == (540, 540), "\(name)")
        #expect(square.isBaseline, "\(name)")
        let thumbnail = try DecodedThumbnail(made.jpeg)
        let difference = Self.difference(square: square, thumbnail: thumbnail)
        #expect(difference < 4, "\(name): the square, scaled down, differs from the thumbnail by \(difference) a channel")
        // And that crop is the centre square of the photo: its quarters' colours say where it is.
        let side = Double(min(width, height)), left = (Double(width) - side) / 2, top = (Double(height) - side) / 2
        for (px, py) in [(135, 135), (405, 135), (135, 405), (405, 405)] {
            let expected = Self.gradient(
                width: width, height: height, x: left + side * Double(px) / 540, y: top + side * Double(py) / 540)
            let seen = square.mean(atX: px, y: py)
            #expect(seen.isClose(to: expected, tolerance: 8), "\(name) at (\(px), \(py)): \(seen), not \(expected)")
        }
    }

    @Test("Each EXIF orientation stands the square upright as it stands the thumbnail", arguments: 1...8)
    func orientation(orientation: Int) throws {
        let made = try made("exif\(orientation).jpg")
        #expect(made.orientation == orientation)
        let square = try DecodedThumbnail(try #require(made.square))
        let thumbnail = try DecodedThumbnail(made.jpeg)
        #expect(Self.difference(square: square, thumbnail: thumbnail) < 4, "orientation \(orientation)")
        // As displayed: the 2,000 × 1,500 gradient's centre square, red left to right, green top down.
        for (px, py) in [(135, 135), (405, 135), (135, 405), (405, 405)] {
            let expected = Self.gradient(
                width: 2000, height: 1500, x: 250 + 1500 * Double(px) / 540, y: 1500 * Double(py) / 540)
            let seen = square.mean(atX: px, y: py)
            #expect(seen.isClose(to: expected, tolerance: 8), "orientation \(orientation) at (\(px), \(py)): \(seen), not \(expected)")
        }
    }

    @Test("A JPEG's square of an odd side, which 4:2:0 planes cannot hold, is made at that side")
    func oddSide() throws {
        var request = Self.request
        request.squareSide = 541
        let square = try DecodedThumbnail(try #require(try made("landscape.jpg", request: request).square))
        #expect((square.width, square.height) == (541, 541))
        for (px, py) in [(135, 135), (405, 405)] {
            let expected = Self.gradient(width: 2000, height: 1500, x: 250 + 1500 * Double(px) / 541, y: 1500 * Double(py) / 541)
            let seen = square.mean(atX: px, y: py)
            #expect(seen.isClose(to: expected, tolerance: 8), "at (\(px), \(py)): \(seen), not \(expected)")
        }
    }

    @Test("None is made without a square side or without a preview to make it from")
    func onlyWhenAsked() throws {
        #expect(try made("landscape.jpg", request: ThumbnailRequest(previewLongSide: 1600)).square == nil)
        #expect(try made("landscape.jpg", request: ThumbnailRequest(squareSide: 540)).square == nil)
        // The 180 px thumbnail is the same whether or not a square is made.
        #expect(try made("landscape.jpg").jpeg == made("landscape.jpg", request: ThumbnailRequest(previewLongSide: 1600)).jpeg)
    }

    @Test("Asking for a square counts its memory in the decode cost")
    func decodeCost() throws {
        let bytes = try Self.fixture("landscape.jpg")
        func cost(_ request: ThumbnailRequest) throws -> Int {
            try bytes.withUnsafeBytes { raw in
                Result { () throws(ImageCodecError) in try ThumbnailMaker(request: request).decodeCost(of: raw) }
            }.get()
        }
        #expect(try cost(Self.request) >= cost(ThumbnailRequest(previewLongSide: 1600)) + 540 * 540 * 3 * 2)
    }
}
