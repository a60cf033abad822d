/// The second, finer look at two photos whose ``Fingerprint``s are near: are they copies of one
/// picture, or two pictures alike in their layout (different whisks shot one after another on
/// one bench)? The 64-bit fingerprint holds a photo's coarse layout only; this compares two
/// larger grey miniatures (``side`` × ``side``, the whole photo squashed) pixel by pixel.
///
/// One miniature is cropped by up to 6 % a side (in 1 % steps, coarse to fine) and resampled
/// onto the other, each way round, and the crop with the highest correlation is kept: a copy
/// cropped a little is aligned again. Then the other is fitted to it by brightness and contrast
/// (least squares), and the 99th percentile of the pixels' differences, in standard deviations
/// of the image, is the ``Comparison/residual``: a copy differs by noise everywhere (re-encoding,
/// resampling), two alike pictures by a lot where their things differ. Measured in
/// docs/PERFORMANCE.md ("Look-alike fingerprints"): copies at most 1.14, whisks on one bench at
/// least 1.61.
public struct CopyConfirmation: Sendable {
    /// How two miniatures compare once aligned.
    public struct Comparison: Sendable, Equatable {
        /// The normalised correlation of the aligned miniatures (−1…1).
        public var correlation: Double
        /// The 99th percentile of the pixel differences after the brightness and contrast fit,
        /// in standard deviations of the image compared with.
        public var residual: Double
    }

    /// Why two grey images cannot be compared.
    public enum Refusal: Error, Sendable, Equatable {
        /// An image's `pixelCount` is not ``side`` × ``side``.
        case badSize(side: Int, pixelCount: Int)
    }

    /// The edge of the grey miniatures compared.
    public static let side = 64
    /// The greatest ``Comparison/residual`` of a copy, chosen by measurement
    /// (docs/PERFORMANCE.md, "Look-alike fingerprints").
    public static let copyResidual = 1.25

    /// The greatest crop a side tried, in hundredths of the edge.
    private static let largestCrop = 6
    /// Pixels left out at each edge of the comparison (resampling reaches past them).
    private static let margin = 4

    public init() {}

    /// Whether `one` and `other` (``side`` × ``side`` grey miniatures, row by row) are copies of
    /// one picture: their ``compare(_:_:)`` residual at most ``copyResidual``.
    public func areCopies(_ one: [UInt8], _ other: [UInt8]) throws(Refusal) -> Bool {
        try compare(one, other).residual <= Self.copyResidual
    }

    /// The two miniatures compared, aligned both ways round; the better alignment is kept.
    public func compare(_ one: [UInt8], _ other: [UInt8]) throws(Refusal) -> Comparison {
        let n = Self.side
        for image in [one, other] where image.count != n * n {
            throw .badSize(side: n, pixelCount: image.count)
        }
        let a = one.map(Float.init), b = other.map(Float.init)
        let forward = Self.aligned(a, onto: b), backward = Self.aligned(b, onto: a)
        return forward.correlation >= backward.correlation ? forward : backward
    }

    /// `source` cropped and resampled to best match `target`, and the residual of that match.
    private static func aligned(_ source: [Float], onto target: [Float]) -> Comparison {
        let n = side, m = margin
        var inner = [Float]()
        inner.reserveCapacity((n - 2 * m) * (n - 2 * m))
        for y in m..<(n - m) { inner += target[(y * n + m)..<(y * n + n - m)] }
        let standardTarget = standardised(inner)

        func correlation(_ crop: Crop) -> Float {
            let candidate = resampled(source, crop)
            let standard = standardised(candidate)
            var total: Float = 0
            for i in 0..<standard.count { total += standard[i] * standardTarget[i] }
            return total
        }
        var best = (score: -Float.infinity, crop: Crop(top: 0, bottom: 0, left: 0, right: 0))
        let coarse = [0, 3, 6]
        for top in coarse { for bottom in coarse { for left in coarse { for right in coarse {
            let crop = Crop(top: top, bottom: bottom, left: left, right: right)
            let score = correlation(crop)
            if score > best.score { best = (score, crop) }
        } } } }
        let centre = best.crop
        func near(_ value: Int) -> [Int] { [value - 1, value, value + 1].filter { (0...largestCrop).contains($0) } }
        for top in near(centre.top) { for bottom in near(centre.bottom) { for left in near(centre.left) { for right in near(centre.right) {
            let crop = Crop(top: top, bottom: bottom, left: left, right: right)
            let score = correlation(crop)
            if score > best.score { best = (score, crop) }
        } } } }
        return Comparison(correlation: Double(best.score), residual: residual(of: resampled(source, best.crop), against: inner))
    }

    /// A crop in hundredths of the edge from each side.
    private struct Crop { var top, bottom, left, right: Int }

    /// The interior (margin left out) of `source` cropped by `crop` and stretched back to the
    /// full edge, bilinearly.
    private static func resampled(_ source: [Float], _ crop: Crop) -> [Float] {
        let n = side, m = margin
        let rows = taps(from: crop.top, to: crop.bottom), columns = taps(from: crop.left, to: crop.right)
        var out = [Float]()
        out.reserveCapacity((n - 2 * m) * (n - 2 * m))
        var line = [Float](repeating: 0, count: n)
        for y in m..<(n - m) {
            let (y0, y1, fy) = rows[y]
            for x in 0..<n { line[x] = source[y0 * n + x] * (1 - fy) + source[y1 * n + x] * fy }
            for x in m..<(n - m) {
                let (x0, x1, fx) = columns[x]
                out.append(line[x0] * (1 - fx) + line[x1] * fx)
            }
        }
        return out
    }

    /// For each output index, the two source indexes and the weight of the second, for a crop
    /// of `start` and `end` hundredths of the edge.
    private static func taps(from start: Int, to end: Int) -> [(Int, Int, Float)] {
        let n = Double(side)
        let offset = Double(start) / 100 * n, span = n * (1 - Double(start + end) / 100)
        return (0..<side).map { index in
            let x = min(max(offset + (Double(index) + 0.5) * span / n - 0.5, 0), n - 1)
            let lower = Int(x.rounded(.down))
            return (lower, min(lower + 1, side - 1), Float(x - Double(lower)))
        }
    }

    /// `values` less their mean, divided by their norm (all zero for a flat image).
    private static func standardised(_ values: [Float]) -> [Float] {
        let mean = values.reduce(0, +) / Float(values.count)
        let centred = values.map { $0 - mean }
        let norm = centred.reduce(0) { $0 + $1 * $1 }.squareRoot()
        return norm > 0 ? centred.map { $0 / norm } : centred
    }

    /// The 99th percentile of |target − (gain · candidate + offset)|, the least-squares fit,
    /// over the standard deviation of `target`.
    private static func residual(of candidate: [Float], against target: [Float]) -> Double {
        let count = Double(target.count)
        var sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0, syy = 0.0
        for i in 0..<target.count {
            let x = Double(candidate[i]), y = Double(target[i])
            sx += x; sy += y; sxx += x * x; sxy += x * y; syy += y * y
        }
        let varianceX = sxx / count - (sx / count) * (sx / count)
        let gain = varianceX > 0 ? (sxy / count - sx / count * sy / count) / varianceX : 0
        let offset = sy / count - gain * sx / count
        let spread = max(syy / count - (sy / count) * (sy / count), 0).squareRoot()
        var differences = (0..<target.count).map { abs(Double(target[$0]) - (gain * Double(candidate[$0]) + offset)) }
        differences.sort()
        let percentile = differences[min(Int((0.99 * (count - 1)).rounded()), differences.count - 1)]
        return spread > 0 ? percentile / spread : (percentile == 0 ? 0 : .infinity)
    }
}
