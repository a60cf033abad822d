/// The whole photo as displayed (EXIF orientation applied), squashed to a `side` × `side` grey
/// image: what a perceptual fingerprint is computed from. The aspect ratio is not kept: a
/// resized copy squashes to the same square.
public struct GreyMiniature: Sendable, Equatable {
    /// Edge in pixels.
    public var side: Int
    /// `side * side` full-range luma values (BT.601 weights), row by row, top to bottom.
    public var pixels: [UInt8]

    public init(side: Int, pixels: [UInt8]) {
        self.side = side
        self.pixels = pixels
    }
}

extension GreyMiniature {
    /// The miniature of a preview decode (stored pixel order) stood upright by `orientation`.
    /// Each output pixel is the mean of the source pixels whose index falls in its cell; a
    /// source narrower or shorter than `side` is sampled at the nearest pixel instead.
    init(preview: DecodedPreview, side: Int, orientation: Orientation) {
        let width = preview.width, height = preview.height
        var stored: [UInt8]
        switch preview.storage {
        case .rgb(let rgb):
            stored = rgb.withUnsafeBufferPointer { source in
                Self.squash(width: width, height: height, side: side) { x, y in
                    let offset = (y * width + x) * 3
                    return (77 * Int(source[offset]) + 150 * Int(source[offset + 1]) + 29 * Int(source[offset + 2]) + 128) >> 8
                }
            }
        case .planes(let planes):
            let stride = planes.lumaWidth
            stored = planes.luma.withUnsafeBufferPointer { luma in
                Self.squash(width: width, height: height, side: side) { x, y in Int(luma[y * stride + x]) }
            }
        }
        stored = orientation.apply(toGreySquare: stored, side: side)
        self.init(side: side, pixels: stored)
    }

    private static func squash(width: Int, height: Int, side: Int, value: (Int, Int) -> Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: side * side)
        guard width > 0, height > 0 else { return out }
        if width < side || height < side {
            for y in 0..<side {
                for x in 0..<side {
                    out[y * side + x] = UInt8(value(x * width / side, y * height / side))
                }
            }
            return out
        }
        var sums = [Int](repeating: 0, count: side * side)
        var counts = [Int](repeating: 0, count: side * side)
        let columnCell = (0..<width).map { $0 * side / width }
        for y in 0..<height {
            let row = (y * side / height) * side
            for x in 0..<width {
                sums[row + columnCell[x]] += value(x, y)
                counts[row + columnCell[x]] += 1
            }
        }
        for cell in 0..<(side * side) {
            out[cell] = UInt8((sums[cell] + counts[cell] / 2) / counts[cell])
        }
        return out
    }
}

extension Orientation {
    /// Applies the orientation to a `side` × `side` grey image (one byte a pixel): squashing to
    /// a square and then turning it is the same as turning and then squashing.
    func apply(toGreySquare pixels: [UInt8], side: Int) -> [UInt8] {
        guard self != .up else { return pixels }
        var out = [UInt8](repeating: 0, count: pixels.count)
        let last = side - 1
        for y in 0..<side {
            for x in 0..<side {
                let (sx, sy): (Int, Int) = switch self {
                case .up: (x, y)
                case .mirrored: (last - x, y)
                case .rotated180: (last - x, last - y)
                case .flippedVertically: (x, last - y)
                case .transposed: (y, x)
                case .rotated90Clockwise: (y, last - x)
                case .transverse: (last - y, last - x)
                case .rotated90CounterClockwise: (last - y, x)
                }
                out[y * side + x] = pixels[sy * side + sx]
            }
        }
        return out
    }
}
