/// Streams the RGB8 rows of a decoded image, top to bottom, and produces the `outputWidth` ×
/// `outputHeight` RGB8 image of one rectangular region of it (the centre square for a
/// thumbnail, the whole image for a preview), without ever holding the whole source: memory
/// is a few rows of the region plus the output, whatever the source's width. Output rows are
/// summed in floats only while source rows still reach them (a ring of ``ringRows`` rows),
/// then rounded into the 8-bit output.
///
/// Large reductions first area-average integer blocks (``BoxShrinker``, leaving at least three
/// times the output size, like Pillow's `reducing_gap`), then apply the separable
/// ``ResampleWeights`` filter: each needed row is filtered horizontally once and added, weighted,
/// into every output row whose vertical footprint covers it.
struct ThumbnailResampler {
    let sourceWidth: Int
    let sourceHeight: Int
    let outputWidth: Int
    let outputHeight: Int
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
    /// The float sums of the open output rows: output row `o` in slot `o % ringRows`.
    private var accumulator: [Float]
    /// Output rows open at once, at most (from the filter's footprints).
    let ringRows: Int
    /// The finished RGB8 output, row by row.
    private var output: [UInt8]
    private var filteredRow: [Float]
    /// The row being filtered, one `SIMD4` (red, green, blue, unused) per needed column.
    private var pixelRow: [SIMD4<Float>]
    private var floatRow: [Float]

    /// - Parameters:
    ///   - region: the square to keep, in source pixel coordinates.
    ///   - size: the output edge in pixels (≥ 1).
    ///   - areaOnly: downscale with the area filter rather than Lanczos-3 (``ResampleWeights``).
    init(sourceWidth: Int, sourceHeight: Int, region: CenterSquare, size: Int, areaOnly: Bool = false) {
        self.init(
            sourceWidth: sourceWidth, sourceHeight: sourceHeight, region: region.rect, outputWidth: size,
            outputHeight: size, areaOnly: areaOnly)
    }

    /// - Parameters:
    ///   - region: the rectangle to keep, in source pixel coordinates.
    ///   - outputWidth, outputHeight: the output's size in pixels (each ≥ 1).
    ///   - areaOnly: downscale with the area filter rather than Lanczos-3 (``ResampleWeights``).
    init(
        sourceWidth: Int, sourceHeight: Int, region: SourceRect, outputWidth: Int, outputHeight: Int, areaOnly: Bool = false
    ) {
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.outputWidth = outputWidth
        self.outputHeight = outputHeight
        let reduction = min(region.width / Double(outputWidth), region.height / Double(outputHeight))
        let factor = max(1, Int((reduction / 3).rounded(.down)))
        shrinkFactor = factor
        let shrunk = region.scaled(by: 1 / Double(factor))
        horizontal = ResampleWeights(
            inputCount: (sourceWidth + factor - 1) / factor, start: shrunk.x, end: shrunk.x + shrunk.width,
            outputCount: outputWidth, areaOnly: areaOnly)
        vertical = ResampleWeights(
            inputCount: (sourceHeight + factor - 1) / factor, start: shrunk.y, end: shrunk.y + shrunk.height,
            outputCount: outputHeight, areaOnly: areaOnly)
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
        ringRows = Self.openRowsAtMost(vertical, outputCount: outputHeight)
        accumulator = [Float](repeating: 0, count: ringRows * outputWidth * 3)
        output = [UInt8](repeating: 0, count: outputWidth * outputHeight * 3)
        filteredRow = [Float](repeating: 0, count: outputWidth * 3)
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

    /// The finished image: `outputWidth * outputHeight * 3` bytes, RGB8. Rows never added count as black.
    mutating func finish() -> [UInt8] {
        while lowestOpenOutputRow < outputHeight {
            closeRow(lowestOpenOutputRow)
            lowestOpenOutputRow += 1
        }
        let finished = output
        output = []
        return finished
    }

    /// The most output rows that are open at once as source rows arrive in order: the span
    /// between the first row a source row can still reach and the last it starts.
    private static func openRowsAtMost(_ vertical: ResampleWeights, outputCount: Int) -> Int {
        var most = 1, low = 0, high = 0
        for y in vertical.inputRange {
            while low < outputCount, vertical.first[low] + vertical.count[low] <= y { low += 1 }
            while high < outputCount, vertical.first[high] <= y { high += 1 }
            most = max(most, high - low)
        }
        return min(most, max(outputCount, 1))
    }

    /// Rounds output row `row`'s sums into the output and clears its ring slot.
    private mutating func closeRow(_ row: Int) {
        let rowLength = outputWidth * 3, slot = (row % ringRows) * rowLength
        accumulator.withUnsafeMutableBufferPointer { values in
            output.withUnsafeMutableBufferPointer { pixels in
                for index in 0..<rowLength {
                    // `value.rounded()` (half away from zero) for 0…255, without a call into libm:
                    // truncation is the floor here, and `value - floor` is exact.
                    let value = max(0, min(255, values[slot + index]))
                    let floor = Int32(value)
                    pixels[row * rowLength + index] = UInt8(truncatingIfNeeded: floor + (value - Float(floor) >= 0.5 ? 1 : 0))
                    values[slot + index] = 0
                }
            }
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
        let width = outputWidth, height = outputHeight, offset = neededColumns.lowerBound
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
                            for x in 0..<width {
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
        while lowestOpenOutputRow < height,
            vertical.first[lowestOpenOutputRow] + vertical.count[lowestOpenOutputRow] <= y {
            closeRow(lowestOpenOutputRow)
            lowestOpenOutputRow += 1
        }
        var outputRow = lowestOpenOutputRow
        let rowLength = width * 3
        accumulator.withUnsafeMutableBufferPointer { accumulator in
            filteredRow.withUnsafeBufferPointer { filtered in
                while outputRow < height, vertical.first[outputRow] <= y {
                    let tap = y - vertical.first[outputRow]
                    if tap < vertical.count[outputRow] {
                        let weight = vertical.weights[outputRow * vertical.stride + tap]
                        Self.addScaled(
                            filtered.baseAddress!, times: weight,
                            into: accumulator.baseAddress! + (outputRow % ringRows) * rowLength, count: rowLength)
                    }
                    outputRow += 1
                }
            }
        }
    }
}
