/// Streams the RGB8 rows of a decoded image, top to bottom, and produces the `size` × `size`
/// RGB8 image of one square region of it, without ever holding the whole source.
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
    private var shrinker: BoxShrinker?
    private let horizontal: ResampleWeights
    private let vertical: ResampleWeights
    private let neededRows: Range<Int>
    private let neededColumns: Range<Int>
    private var lowestOpenOutputRow = 0
    private var accumulator: [Float]
    private var filteredRow: [Float]
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
        let inverse = 1 / Double(factor)
        let shrunkWidth = (sourceWidth + factor - 1) / factor
        let shrunkHeight = (sourceHeight + factor - 1) / factor
        let shrunk = region.scaled(by: inverse)
        horizontal = ResampleWeights(
            inputCount: shrunkWidth, start: shrunk.x, end: shrunk.x + shrunk.side, outputCount: size)
        vertical = ResampleWeights(
            inputCount: shrunkHeight, start: shrunk.y, end: shrunk.y + shrunk.side, outputCount: size)
        neededColumns = horizontal.inputRange
        neededRows = vertical.inputRange
        shrinker = factor > 1
            ? BoxShrinker(factor: factor, sourceWidth: sourceWidth, sourceHeight: sourceHeight, columns: neededColumns)
            : nil
        accumulator = [Float](repeating: 0, count: size * size * 3)
        filteredRow = [Float](repeating: 0, count: size * 3)
        floatRow = factor > 1 ? [] : [Float](repeating: 0, count: sourceWidth * 3)
    }

    /// Whether source row `y` contributes at all (decoders may skip converting others).
    func needs(row y: Int) -> Bool {
        neededRows.contains(y / shrinkFactor)
    }

    /// Adds source row `y` (RGB8, `sourceWidth` pixels). Rows must come in increasing order.
    mutating func add(row: UnsafeBufferPointer<UInt8>, y: Int) {
        guard needs(row: y), row.count >= sourceWidth * 3 else { return }
        if var shrinker {
            self.shrinker = nil  // keep its buffer uniquely referenced while it is mutated
            shrinker.add(row: row, y: y) { shrunkY, shrunkRow in addFiltered(row: shrunkRow, y: shrunkY) }
            self.shrinker = shrinker
        } else {
            var floats = floatRow
            floatRow = []
            floats.withUnsafeMutableBufferPointer { floats in
                for index in (neededColumns.lowerBound * 3)..<(neededColumns.upperBound * 3) {
                    floats[index] = Float(row[index])
                }
                addFiltered(row: UnsafeBufferPointer(floats), y: y)
            }
            floatRow = floats
        }
    }

    /// The finished image: `size * size * 3` bytes, RGB8. Rows never added count as black.
    func finish() -> [UInt8] {
        accumulator.map { value in UInt8(max(0, min(255, value.rounded()))) }
    }

    /// Filters one (shrunk) row horizontally, then adds it into the output rows it feeds.
    private mutating func addFiltered(row: UnsafeBufferPointer<Float>, y: Int) {
        let size = self.size
        filteredRow.withUnsafeMutableBufferPointer { out in
            horizontal.first.withUnsafeBufferPointer { first in
                horizontal.count.withUnsafeBufferPointer { count in
                    horizontal.weights.withUnsafeBufferPointer { weights in
                        let stride = horizontal.stride
                        for x in 0..<size {
                            var r: Float = 0, g: Float = 0, b: Float = 0
                            let base = first[x]
                            for tap in 0..<count[x] {
                                let weight = weights[x * stride + tap]
                                let pixel = (base + tap) * 3
                                r += weight * row[pixel]
                                g += weight * row[pixel + 1]
                                b += weight * row[pixel + 2]
                            }
                            out[x * 3] = r
                            out[x * 3 + 1] = g
                            out[x * 3 + 2] = b
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
                        let base = outputRow * rowLength
                        for index in 0..<rowLength { accumulator[base + index] += weight * filtered[index] }
                    }
                    outputRow += 1
                }
            }
        }
    }
}
