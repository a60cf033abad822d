@testable import UtensilCodec

/// Decoded thumbnail pixels, read back through the codec's own JPEG decoder (at the thumbnail's
/// own size the resampler is the identity).
struct DecodedThumbnail {
    let width: Int
    let height: Int
    let pixels: [UInt8]
    let isBaseline: Bool

    init(_ jpeg: [UInt8]) throws {
        let markers = jpeg.withUnsafeBytes { JPEGMarkers($0) }
        let header = try jpeg.withUnsafeBytes { bytes in
            Result { () throws(ImageCodecError) in try JPEGDecoder(size: 1, maxPixels: .max).decode(bytes) }
        }.get()
        let decoded = try jpeg.withUnsafeBytes { bytes in
            Result { () throws(ImageCodecError) in try JPEGDecoder(size: header.storedWidth, maxPixels: .max).decode(bytes) }
        }.get()
        width = header.storedWidth
        height = header.storedHeight
        pixels = decoded.pixels
        isBaseline = markers.frameMarker == 0xC0
    }

    /// Mean colour of the `edge` × `edge` patch centred at (`x`, `y`).
    func mean(atX x: Int, y: Int, edge: Int = 16) -> RGB {
        var sums = [0, 0, 0], count = 0
        for py in max(0, y - edge / 2)..<min(height, y + edge / 2) {
            for px in max(0, x - edge / 2)..<min(width, x + edge / 2) {
                for channel in 0..<3 { sums[channel] += Int(pixels[(py * width + px) * 3 + channel]) }
                count += 1
            }
        }
        return RGB(sums[0] / count, sums[1] / count, sums[2] / count)
    }

    /// Mean colours at the centres of the four quadrants: top-left, top-right, bottom-left, bottom-right.
    var quadrantMeans: [RGB] {
        let quarter = width / 4, threeQuarters = width * 3 / 4
        return [
            mean(atX: quarter, y: quarter), mean(atX: threeQuarters, y: quarter),
            mean(atX: quarter, y: threeQuarters), mean(atX: threeQuarters, y: threeQuarters),
        ]
    }

    /// Mean of the whole image.
    var overallMean: RGB { mean(atX: width / 2, y: height / 2, edge: width) }
}

/// Makes a thumbnail from an array of bytes.
func thumbnail(
    _ bytes: [UInt8], size: Int = 180, quality: Int = 85, maxPixels: Int = 100_000_000
) throws(ImageCodecError) -> Thumbnail {
    let maker = ThumbnailMaker(request: ThumbnailRequest(size: size, quality: quality, maxPixels: maxPixels))
    return try bytes.withUnsafeBytes { bytes in
        Result { () throws(ImageCodecError) in try maker.makeThumbnail(from: bytes) }
    }.get()
}

/// The error `body` throws, or `nil` when it succeeds.
func codecError(_ body: () throws(ImageCodecError) -> Thumbnail) -> ImageCodecError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}

extension ImageCodecError {
    var isCorrupt: Bool {
        if case .corrupt = self { return true }
        return false
    }

    var isUnsupported: Bool {
        if case .unsupported = self { return true }
        return false
    }
}

/// A deterministic generator (SplitMix64) so hostile-input tests are repeatable.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
