#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Computes a ``Fingerprint`` from a small grey image: the two-dimensional DCT-II of the image,
/// its 8 × 8 lowest frequencies after the constant term (brightness), each compared with their
/// median. Coarse structure survives re-encoding, resizing and small crops; the median makes
/// the bits indifferent to a change of brightness or contrast.
public struct PerceptualHash: Sendable {
    /// Why a grey image gives no fingerprint.
    public enum Refusal: Error, Sendable, Equatable {
        /// `pixels.count` is not `side * side`, or `side` is below 16.
        case badSize(side: Int, pixelCount: Int)
        /// The image is (nearly) one flat tone: its grey levels spread by `spread` (standard
        /// deviation) below the ``PerceptualHash/minimumSpread``. Such a fingerprint would be
        /// noise, and every blank photo would resemble every other.
        case featureless(spread: Double)
    }

    /// The grey standard deviation below which an image counts as featureless.
    public static let minimumSpread = 2.0

    /// Edge of the grey image the fingerprint is made from.
    public let side: Int
    /// `cosines[k * side + x]` = cos((2x + 1) k π / 2 side) for k in 1…8.
    private let cosines: [Double]

    /// - Parameter side: the edge of the grey images to be given (32 is usual; at least 16).
    public init(side: Int = 32) {
        self.side = side
        var table = [Double](repeating: 0, count: 9 * side)
        for k in 1...8 {
            for x in 0..<side {
                table[k * side + x] = cos(Double((2 * x + 1) * k) * Double.pi / Double(2 * side))
            }
        }
        cosines = table
    }

    /// The fingerprint of a `side` × `side` grey image (`pixels` row by row).
    public func fingerprint(of pixels: [UInt8]) throws(Refusal) -> Fingerprint {
        guard side >= 16, pixels.count == side * side else {
            throw .badSize(side: side, pixelCount: pixels.count)
        }
        let count = Double(pixels.count)
        var sum = 0.0, squares = 0.0
        for value in pixels {
            sum += Double(value)
            squares += Double(value) * Double(value)
        }
        let spread = (max(squares / count - (sum / count) * (sum / count), 0)).squareRoot()
        guard spread >= Self.minimumSpread else { throw .featureless(spread: spread) }

        // Rows first: rowTerms[y * 8 + (u - 1)] = Σx pixel(x, y) · cos_u(x).
        var rowTerms = [Double](repeating: 0, count: side * 8)
        for y in 0..<side {
            for u in 1...8 {
                var total = 0.0
                for x in 0..<side { total += Double(pixels[y * side + x]) * cosines[u * side + x] }
                rowTerms[y * 8 + u - 1] = total
            }
        }
        var coefficients = [Double](repeating: 0, count: 64)
        for v in 1...8 {
            for u in 1...8 {
                var total = 0.0
                for y in 0..<side { total += rowTerms[y * 8 + u - 1] * cosines[v * side + y] }
                coefficients[(v - 1) * 8 + u - 1] = total
            }
        }
        let sorted = coefficients.sorted()
        let median = (sorted[31] + sorted[32]) / 2
        var bits: UInt64 = 0
        for (index, coefficient) in coefficients.enumerated() where coefficient > median {
            bits |= 1 << UInt64(index)
        }
        return Fingerprint(bits: bits)
    }
}
