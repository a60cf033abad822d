/// The eight EXIF orientations and how to stand a square image upright.
enum Orientation: Int, Sendable, CaseIterable {
    case up = 1, mirrored = 2, rotated180 = 3, flippedVertically = 4
    case transposed = 5, rotated90Clockwise = 6, transverse = 7, rotated90CounterClockwise = 8

    /// The value applied for an EXIF tag: anything outside 1…8 (or missing) means upright.
    init(exifValue: Int?) {
        self = exifValue.flatMap(Orientation.init(rawValue:)) ?? .up
    }

    /// Whether the displayed image has width and height swapped relative to the stored one.
    var swapsAxes: Bool { rawValue >= 5 }

    /// Applies the orientation to a `side` × `side` RGB8 image (`pixels.count == side * side * 3`).
    ///
    /// A centre square maps onto the centre square under all eight transforms, so the raw image
    /// can be cropped and scaled first and only the small result transformed here.
    func apply(toSquare pixels: [UInt8], side: Int) -> [UInt8] {
        guard self != .up else { return pixels }
        var out = [UInt8](repeating: 0, count: pixels.count)
        let last = side - 1
        pixels.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                for y in 0..<side {
                    for x in 0..<side {
                        let (sx, sy): (Int, Int)
                        switch self {
                        case .up: (sx, sy) = (x, y)
                        case .mirrored: (sx, sy) = (last - x, y)
                        case .rotated180: (sx, sy) = (last - x, last - y)
                        case .flippedVertically: (sx, sy) = (x, last - y)
                        case .transposed: (sx, sy) = (y, x)
                        case .rotated90Clockwise: (sx, sy) = (y, last - x)
                        case .transverse: (sx, sy) = (last - y, last - x)
                        case .rotated90CounterClockwise: (sx, sy) = (last - y, x)
                        }
                        let from = (sy * side + sx) * 3, to = (y * side + x) * 3
                        target[to] = source[from]
                        target[to + 1] = source[from + 1]
                        target[to + 2] = source[from + 2]
                    }
                }
            }
        }
        return out
    }

    /// Applies the orientation to a `width` × `height` RGB8 image (`pixels.count == width *
    /// height * 3`); the result is `height` × `width` when ``swapsAxes``.
    func apply(to pixels: [UInt8], width: Int, height: Int) -> [UInt8] {
        guard self != .up else { return pixels }
        var out = [UInt8](repeating: 0, count: pixels.count)
        let outWidth = swapsAxes ? height : width, outHeight = swapsAxes ? width : height
        let lastX = width - 1, lastY = height - 1
        pixels.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                for y in 0..<outHeight {
                    for x in 0..<outWidth {
                        let (sx, sy): (Int, Int)
                        switch self {
                        case .up: (sx, sy) = (x, y)
                        case .mirrored: (sx, sy) = (lastX - x, y)
                        case .rotated180: (sx, sy) = (lastX - x, lastY - y)
                        case .flippedVertically: (sx, sy) = (x, lastY - y)
                        case .transposed: (sx, sy) = (y, x)
                        case .rotated90Clockwise: (sx, sy) = (y, lastY - x)
                        case .transverse: (sx, sy) = (lastX - y, lastY - x)
                        case .rotated90CounterClockwise: (sx, sy) = (lastX - y, x)
                        }
                        let from = (sy * width + sx) * 3, to = (y * outWidth + x) * 3
                        target[to] = source[from]
                        target[to + 1] = source[from + 1]
                        target[to + 2] = source[from + 2]
                    }
                }
            }
        }
        return out
    }
}
