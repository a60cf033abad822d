#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The filter taps of one axis of a resize, computed once (as Pillow's `precompute_coeffs`):
/// output pixel `i` is the weighted sum of inputs `first[i] ..< first[i] + count[i]`.
///
/// Downscaling uses Lanczos-3 widened by the scale factor, so every input pixel under an output
/// pixel's footprint contributes (an antialiased area filter, sharper than a box); upscaling
/// uses bilinear interpolation. With `areaOnly`, downscaling weighs each input pixel by how
/// much of the output pixel's footprint it covers instead (two taps at a reduction below 2:
/// for a near-unity resize, where Lanczos' seven taps buy nothing a person can see).
struct ResampleWeights {
    let outputCount: Int
    /// Taps reserved per output; `weights[i * stride + k]` is the weight of input `first[i] + k`.
    let stride: Int
    private(set) var first: [Int]
    private(set) var count: [Int]
    private(set) var weights: [Float]

    /// - Parameters:
    ///   - inputCount: pixels available on this axis (the filter may read outside the region).
    ///   - start, end: the region of the input mapped onto the output, in input pixel units.
    init(inputCount: Int, start: Double, end: Double, outputCount: Int, areaOnly: Bool = false) {
        let scale = (end - start) / Double(outputCount)
        let downscaling = scale > 1
        let filterScale = max(scale, 1)
        let area = areaOnly && downscaling
        let support = (area ? 0.5 : downscaling ? 3.0 : 1.0) * filterScale
        let stride = Int((support * 2).rounded(.up)) + 2
        self.outputCount = outputCount
        self.stride = stride
        first = [Int](repeating: 0, count: outputCount)
        count = [Int](repeating: 0, count: outputCount)
        weights = [Float](repeating: 0, count: outputCount * stride)

        var raw = [Double](repeating: 0, count: stride)  // One output's taps, reused (no allocation per output).
        for output in 0..<outputCount {
            let center = start + (Double(output) + 0.5) * scale
            // An area filter reads every pixel its footprint touches; the others, every pixel
            // whose centre is within their support.
            let reach = area ? 0.0 : 0.5
            let low = max(Int((center - support + reach).rounded(.down)), 0)
            let high = max(min(Int((center + support + reach).rounded(area ? .up : .down)), inputCount), low)
            let taps = min(high - low, stride)
            var total = 0.0
            for tap in 0..<taps {
                let distance = (Double(low + tap) - center + 0.5) / filterScale
                raw[tap] = area
                    ? max(0, min(Double(low + tap + 1), center + support) - max(Double(low + tap), center - support))
                    : downscaling ? Self.lanczos3(distance) : Self.triangle(distance)
                total += raw[tap]
            }
            if taps == 0 || total == 0 {
                // Degenerate footprint (cannot happen for sane geometry): take the nearest pixel.
                first[output] = min(max(Int(center), 0), inputCount - 1)
                count[output] = 1
                weights[output * stride] = 1
                continue
            }
            first[output] = low
            count[output] = taps
            for tap in 0..<taps { weights[output * stride + tap] = Float(raw[tap] / total) }
        }
    }

    /// Inputs read by any output.
    var inputRange: Range<Int> {
        guard outputCount > 0 else { return 0..<0 }
        var low = Int.max, high = Int.min
        for output in 0..<outputCount {
            low = min(low, first[output])
            high = max(high, first[output] + count[output])
        }
        return low..<high
    }

    private static func sinc(_ x: Double) -> Double {
        if x == 0 { return 1 }
        let px = Double.pi * x
        return sin(px) / px
    }

    private static func lanczos3(_ x: Double) -> Double {
        abs(x) < 3 ? sinc(x) * sinc(x / 3) : 0
    }

    private static func triangle(_ x: Double) -> Double {
        max(0, 1 - abs(x))
    }
}
