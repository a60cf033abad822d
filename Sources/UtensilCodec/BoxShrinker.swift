/// Area-averages blocks of `factor` × `factor` source pixels into one (partial blocks at the
/// right and bottom edges average what they cover). A cheap first stage for large reductions,
/// as a JPEG's DCT scaling is; the filter stage then only sees a few times the output size.
struct BoxShrinker {
    let factor: Int
    let sourceWidth: Int
    let sourceHeight: Int
    /// Shrunk columns produced (others are never computed).
    let columns: Range<Int>
    private var sums: [Float]
    private var rowsInBlock = 0

    /// Source columns read: the blocks of `columns`.
    var sourceColumns: Range<Int> {
        (columns.lowerBound * factor)..<min(columns.upperBound * factor, sourceWidth)
    }

    init(factor: Int, sourceWidth: Int, sourceHeight: Int, columns: Range<Int>) {
        self.factor = factor
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.columns = columns
        sums = [Float](repeating: 0, count: columns.count * 3)
    }

    /// Adds source row `y`, given as RGB8 for ``sourceColumns`` only. When it completes a row of
    /// blocks, calls `emit` with the shrunk row index and its averages (RGB floats for `columns`).
    mutating func add(
        row: UnsafeBufferPointer<UInt8>, y: Int,
        emit: (Int, UnsafeBufferPointer<Float>) -> Void
    ) {
        let factor = self.factor, width = sourceWidth, columns = self.columns
        let firstSourceColumn = columns.lowerBound * factor
        sums.withUnsafeMutableBufferPointer { sums in
            for column in columns {
                let from = column * factor, to = min(from + factor, width)
                var r: Float = 0, g: Float = 0, b: Float = 0
                for x in (from - firstSourceColumn)..<(to - firstSourceColumn) {
                    r += Float(row[x * 3])
                    g += Float(row[x * 3 + 1])
                    b += Float(row[x * 3 + 2])
                }
                let slot = (column - columns.lowerBound) * 3
                sums[slot] += r
                sums[slot + 1] += g
                sums[slot + 2] += b
            }
        }
        rowsInBlock += 1
        guard rowsInBlock == factor || y == sourceHeight - 1 else { return }
        let rows = Float(rowsInBlock)
        sums.withUnsafeMutableBufferPointer { sums in
            for column in columns {
                let pixels = Float(min(column * factor + factor, width) - column * factor) * rows
                let slot = (column - columns.lowerBound) * 3
                for channel in 0..<3 { sums[slot + channel] /= pixels }
            }
            emit(y / factor, UnsafeBufferPointer(sums))
            for index in sums.indices { sums[index] = 0 }
        }
        rowsInBlock = 0
    }
}
