/// Streams the RGB8 rows of a decoded image, top to bottom, and produces the `size` × `size`
/// RGB8 image of one square region of it, without ever holding the whole source: memory is a
/// few rows of the region plus the output, whatever the source's width.
///
/// Large reductions first area-average integer blocks (``BoxShrinker``, leaving at least three
/// times the output size, like Pillow's `reducing_gap`), then apply the separable
/// ``ResampleWeights`` filter: each needed row is filtered horizontally once and added, weighted,
/// into every output row whose vertical footprint covers it.
struct ThumbnailResampler {
    let sourceWidth: Int
    let sourceHeight: Int
    let size: Int
    /// Block edge of the area-averaging first stage (1: none).
    let shrinkFactor: Int
    /// The source columns read; rows are passed to ``add(row:y:)`` for these columns only.
    let sourceColumns: Range<Int>
    private var shrinker: BoxShrinker?
    private let horizontal: ResampleWeights
    private let vertical: ResampleWeights
    /// Rows and columns (after shrinking) that any output pixel reads.
    private let neededRows: Range<Int>
    private let neededColumns: Range<Int>
    private var lowestOpenOutputRow = 0
    private var accumulator: [Float]
    private var filteredRow: [Float]
    /// The row being filtered, one `SIMD4` (red, green, blue, unused) per needed column.
    private var pixelRow: [SIMD4<Float>]
    private var floatRow: [Float]

    /// - Parameters:
    ///   - region: the square to keep, in source pixel coordinates.
    ///   - size: the output edge in pixels (≥ 1).
    init(sourceWidth: Int, sourceHeight: Int, region: CenterSquare, size: Int) {
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.size = size
        let factor = max(1, Int((region.side / Double(size) / 3).rounded(.down)))
        shrinkFactor = factor
        let shrunk = region.scaled(by: 1 / Double(factor))
        horizontal = ResampleWeights(
            inputCount: (sourceWidth + factor - 1) / factor, start: shrunk.x, end: shrunk.x + shrunk.side,
            outputCount: size)
        vertical = ResampleWeights(
            inputCount: (sourceHeight + factor - 1) / factor, start: shrunk.y, end: shrunk.y + shrunk.side,
            outputCount: size)
        neededColumns = horizontal.inputRange
        neededRows = vertical.inputRange
        if factor > 1 {
            let shrinker = BoxShrinker(
                factor: factor, sourceWidth: sourceWidth, sourceHeight: sourceHeight, columns: neededColumns)
            sourceColumns = shrinker.sourceColumns
            self.shrinker = shrinker
            floatRow = []
        } else {
            sourceColumns = neededColumns
            shrinker = nil
            floatRow = [Float](repeating: 0, count: neededColumns.count * 3)
        }
        accumulator = [Float](repeating: 0, count: size * size * 3)
        filteredRow = [Float](repeating: 0, count: size * 3)
        pixelRow = [SIMD4<Float>](repeating: .zero, count: neededColumns.count)
    }

    /// Whether source row `y` contributes at all (decoders may skip converting others).
    func needs(row y: Int) -> Bool {
        neededRows.contains(y / shrinkFactor)
    }

    /// Adds source row `y`: RGB8 pixels of ``sourceColumns`` only. Rows must come in increasing order.
    mutating func add(row: UnsafeBufferPointer<UInt8>, y: Int) {
        guard needs(row: y), row.count >= sourceColumns.count * 3 else { return }
        if var shrinker {
            self.shrinker = nil  // keep its buffer uniquely referenced while it is mutated
            shrinker.add(row: row, y: y) { shrunkY, shrunkRow in addFiltered(row: shrunkRow, y: shrunkY) }
            self.shrinker = shrinker
        } else {
            var floats = floatRow
            floatRow = []  // likewise
            floats.withUnsafeMutableBufferPointer { floats in
                for index in floats.indices { floats[index] = Float(row[index]) }
                addFiltered(row: UnsafeBufferPointer(floats), y: y)
            }
            floatRow = floats
        }
    }

    /// The finished image: `size * size * 3` bytes, RGB8. Rows never added count as black.
    func finish() -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: accumulator.count) { pixels, initialized in
            accumulator.withUnsafeBufferPointer { values in
                for index in values.indices {
                    // `value.rounded()` (half away from zero) for 0…255, without a call into libm:
                    // truncation is the floor here, and `value - floor` is exact.
                    let value = max(0, min(255, values[index]))
                    let floor = Int32(value)
                    pixels[index] = UInt8(truncatingIfNeeded: floor + (value - Float(floor) >= 0.5 ? 1 : 0))
                }
            }
            initialized = accumulator.count
        }
    }

    /// `target[i] += weight * source[i]` for `count` floats, eight at a time: the compiler cannot
    /// vectorise the plain loop, since it cannot prove that the two buffers do not overlap. The
    /// same multiply, then add, per element as the plain loop: the sums are bit for bit the same.
    @inline(__always)
    private static func addScaled(
        _ source: UnsafePointer<Float>, times weight: Float, into target: UnsafeMutablePointer<Float>, count: Int
    ) {
        let weights = SIMD8<Float>(repeating: weight)
        let from = UnsafeRawPointer(source), to = UnsafeMutableRawPointer(target)
        var index = 0
        while index + 8 <= count {
            let offset = index * MemoryLayout<Float>.stride
            let sum = to.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
                + weights * from.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
            to.storeBytes(of: sum, toByteOffset: offset, as: SIMD8<Float>.self)
            index += 8
        }
        while index < count {
            target[index] += weight * source[index]
            index += 1
        }
    }

    /// Filters one (shrunk) row, given for `neededColumns`, horizontally; then adds it into the
    /// output rows it feeds.
    private mutating func addFiltered(row: UnsafeBufferPointer<Float>, y: Int) {
        let size = self.size, offset = neededColumns.lowerBound
        // One SIMD lane per channel: each tap is then a single multiply-add for all three.
        pixelRow.withUnsafeMutableBufferPointer { pixels in
            for index in pixels.indices {
                pixels[index] = SIMD4(row[index * 3], row[index * 3 + 1], row[index * 3 + 2], 0)
            }
        }
        filteredRow.withUnsafeMutableBufferPointer { out in
            pixelRow.withUnsafeBufferPointer { pixels in
                horizontal.first.withUnsafeBufferPointer { first in
                    horizontal.count.withUnsafeBufferPointer { count in
                        horizontal.weights.withUnsafeBufferPointer { weights in
                            let stride = horizontal.stride
                            for x in 0..<size {
                                var sum = SIMD4<Float>()
                                let base = first[x] - offset
                                for tap in 0..<count[x] {
                                    sum += weights[x * stride + tap] * pixels[base + tap]
                                }
                                out[x * 3] = sum.x
                                out[x * 3 + 1] = sum.y
                                out[x * 3 + 2] = sum.z
                            }
                        }
                    }
                }
            }
        }
        while lowestOpenOutputRow < size,
            vertical.first[lowestOpenOutputRow] + vertical.count[lowestOpenOutputRow] <= y {
            lowestOpenOutputRow += 1
        }
        var outputRow = lowestOpenOutputRow
        let rowLength = size * 3
        accumulator.withUnsafeMutableBufferPointer { accumulator in
            filteredRow.withUnsafeBufferPointer { filtered in
                while outputRow < size, vertical.first[outputRow] <= y {
                    let tap = y - vertical.first[outputRow]
                    if tap < vertical.count[outputRow] {
                        let weight = vertical.weights[outputRow * vertical.stride + tap]
                        Self.addScaled(
                            filtered.baseAddress!, times: weight,
                            into: accumulator.baseAddress! + outputRow * rowLength, count: rowLength)
                    }
                    outputRow += 1
                }
            }
        }
    }
}
