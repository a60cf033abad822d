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
            var line = [UInt8](repeating: 0, count: width)
            stored = rgb.withUnsafeBufferPointer { source in
                line.withUnsafeMutableBufferPointer { line in
                    Self.squash(width: width, height: height, side: side) { y in
                        let row = y * width * 3
                        for x in 0..<width {
                            let offset = row + x * 3
                            let luma = 77 &* UInt32(source[offset]) &+ 150 &* UInt32(source[offset + 1])
                                &+ 29 &* UInt32(source[offset + 2]) &+ 128
                            line[x] = UInt8(truncatingIfNeeded: luma >> 8)
                        }
                        return UnsafeBufferPointer(line)
                    }
                }
            }
        case .planes(let planes):
            let stride = planes.lumaWidth
            stored = planes.luma.withUnsafeBufferPointer { luma in
                Self.squash(width: width, height: height, side: side) { y in
                    UnsafeBufferPointer(rebasing: luma[(y * stride)..<(y * stride + width)])
                }
            }
        }
        stored = orientation.apply(toGreySquare: stored, side: side)
        self.init(side: side, pixels: stored)
    }

    /// Squashes the image whose row `y` (grey, `width` bytes) `row(y)` gives to `side` × `side`.
    /// A pixel at (x, y) falls in the cell (x · side / width, y · side / height): the cells'
    /// edges are worked out once, each row summed a cell's run of bytes at a time, and each
    /// cell's mean taken over its width × height pixels (the same values as summing pixel by
    /// pixel, in a fraction of the time: this runs on every photo's full preview-scale decode).
    private static func squash(width: Int, height: Int, side: Int, row: (Int) -> UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: side * side)
        guard width > 0, height > 0 else { return out }
        if width < side || height < side {
            for y in 0..<side {
                let line = row(y * height / side)
                for x in 0..<side {
                    out[y * side + x] = line[x * width / side]
                }
            }
            return out
        }
        // The first column (row) of each cell: the least x with x · side / width ≥ cell.
        let columnStarts = (0...side).map { ($0 * width + side - 1) / side }
        let rowStarts = (0...side).map { ($0 * height + side - 1) / side }
        var sums = [Int](repeating: 0, count: side * side)
        for band in 0..<side {
            for y in rowStarts[band]..<rowStarts[band + 1] {
                let line = row(y)
                for cell in 0..<side {
                    var sum: UInt32 = 0
                    for x in columnStarts[cell]..<columnStarts[cell + 1] { sum &+= UInt32(line[x]) }
                    sums[band * side + cell] &+= Int(sum)
                }
            }
        }
        for band in 0..<side {
            for cell in 0..<side {
                let count = (rowStarts[band + 1] - rowStarts[band]) * (columnStarts[cell + 1] - columnStarts[cell])
                out[band * side + cell] = UInt8((sums[band * side + cell] + count / 2) / count)
            }
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
