/// Area-averages blocks of `factor` × `factor` source pixels into one (partial blocks at the
/// right and bottom edges average what they cover). A cheap first stage for large reductions,
/// as a JPEG's DCT scaling is; the filter stage then only sees a few times the output size.
struct BoxShrinker {
    let factor: Int
    let sourceWidth: Int
    let sourceHeight: Int
    /// Shrunk columns to produce; columns outside are skipped.
    let columns: Range<Int>
    private var sums: [Float]
    private var rowsInBlock = 0

    var shrunkWidth: Int { (sourceWidth + factor - 1) / factor }
    var shrunkHeight: Int { (sourceHeight + factor - 1) / factor }

    init(factor: Int, sourceWidth: Int, sourceHeight: Int, columns: Range<Int>) {
        self.factor = factor
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.columns = columns
        sums = [Float](repeating: 0, count: (sourceWidth + factor - 1) / factor * 3)
    }

    /// Adds source row `y` (RGB8, `sourceWidth` pixels); when it completes a block row, calls
    /// `emit` with the shrunk row index and its averaged RGB floats (`shrunkWidth * 3`).
    mutating func add(
        row: UnsafeBufferPointer<UInt8>, y: Int,
        emit: (Int, UnsafeBufferPointer<Float>) -> Void
    ) {
        let factor = self.factor, width = sourceWidth
        sums.withUnsafeMutableBufferPointer { sums in
            for column in columns {
                let from = column * factor, to = min(from + factor, width)
                var r: Float = 0, g: Float = 0, b: Float = 0
                for x in from..<to {
                    r += Float(row[x * 3])
                    g += Float(row[x * 3 + 1])
                    b += Float(row[x * 3 + 2])
                }
                sums[column * 3] += r
                sums[column * 3 + 1] += g
                sums[column * 3 + 2] += b
            }
        }
        rowsInBlock += 1
        guard rowsInBlock == factor || y == sourceHeight - 1 else { return }
        let rows = Float(rowsInBlock)
        sums.withUnsafeMutableBufferPointer { sums in
            for column in columns {
                let pixels = Float(min(column * factor + factor, width) - column * factor) * rows
                for channel in 0..<3 { sums[column * 3 + channel] /= pixels }
            }
            emit(y / factor, UnsafeBufferPointer(sums))
            for index in sums.indices { sums[index] = 0 }
        }
        rowsInBlock = 0
    }
}
