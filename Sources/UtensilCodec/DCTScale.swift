import CTurboJPEG

/// A libjpeg DCT scaling factor (`num/denom`): decoding at 1/8 costs a fraction of a full decode.
struct DCTScale: Equatable, Sendable, CustomStringConvertible {
    var num: Int
    var denom: Int

    static let identity = DCTScale(num: 1, denom: 1)

    var factor: Double { Double(num) / Double(denom) }
    var description: String { "\(num)/\(denom)" }

    /// `TJSCALED(dimension, factor)`, a C macro Swift cannot import.
    func scaled(_ dimension: Int) -> Int { (dimension * num + denom - 1) / denom }

    /// The reductions (factors ≤ 1) libturbojpeg offers, from `tjGetScalingFactors`.
    static func available() -> [DCTScale] {
        var count: Int32 = 0
        guard let factors = tjGetScalingFactors(&count), count > 0 else { return [.identity] }
        var scales: [DCTScale] = []
        for index in 0..<Int(count) {
            let factor = factors[index]
            if factor.num > 0, factor.denom > 0, factor.num <= factor.denom {
                scales.append(DCTScale(num: Int(factor.num), denom: Int(factor.denom)))
            }
        }
        return scales.isEmpty ? [.identity] : scales
    }

    /// The smallest scale whose scaled centre square (`min` of the scaled sides) still covers
    /// `size`; full size when none does. Among scales giving the same scaled dimensions, the
    /// largest, because that is the one `tjDecompress2` picks for those dimensions.
    static func smallestCovering(
        width: Int, height: Int, size: Int, among scales: [DCTScale] = available()
    ) -> DCTScale {
        let ascending = scales.sorted { $0.factor < $1.factor }
        guard let chosen = ascending.first(where: { min($0.scaled(width), $0.scaled(height)) >= size })
        else { return .identity }
        let same = ascending.filter { $0.scaled(width) == chosen.scaled(width) && $0.scaled(height) == chosen.scaled(height) }
        return same.last ?? chosen
    }

    /// The smallest scale whose scaled image is still at least `minimumWidth` × `minimumHeight`
    /// (a preview and a thumbnail's square made from one decode); full size when none is. Ties
    /// as in ``smallestCovering(width:height:size:among:)``.
    static func smallestCovering(
        width: Int, height: Int, minimumWidth: Int, minimumHeight: Int, among scales: [DCTScale] = available()
    ) -> DCTScale {
        let ascending = scales.sorted { $0.factor < $1.factor }
        guard let chosen = ascending.first(where: { $0.scaled(width) >= minimumWidth && $0.scaled(height) >= minimumHeight })
        else { return .identity }
        let same = ascending.filter { $0.scaled(width) == chosen.scaled(width) && $0.scaled(height) == chosen.scaled(height) }
        return same.last ?? chosen
    }
}
