/// Resamples a rectangle of one 8-bit plane (a JPEG's luma or one of its chroma planes) with
/// the area filter (``ResampleWeights``, `areaOnly`; bilinear where it enlarges): each output
/// row is first summed vertically from the few source rows under it, eight samples at a time,
/// then filtered horizontally. For the grid square, whose reduction is small (two or three
/// taps a sample), made in the planes the encoder takes as they are.
enum PlaneResampler {
    /// Writes `region` of the `width` × `height` plane `source` (rows `stride` bytes apart),
    /// scaled to `outputWidth` × `outputHeight`, into `target` (rows `targetStride` bytes apart).
    static func resample(
        _ source: UnsafeBufferPointer<UInt8>, stride: Int, width: Int, height: Int, region: SourceRect,
        into target: UnsafeMutableBufferPointer<UInt8>, stride targetStride: Int, outputWidth: Int, outputHeight: Int
    ) {
        precondition(
            width > 0 && height > 0 && stride >= width && source.count >= (height - 1) * stride + width
                && outputWidth > 0 && outputHeight > 0 && targetStride >= outputWidth
                && target.count >= (outputHeight - 1) * targetStride + outputWidth)
        let horizontal = ResampleWeights(
            inputCount: width, start: region.x, end: region.x + region.width, outputCount: outputWidth, areaOnly: true)
        let vertical = ResampleWeights(
            inputCount: height, start: region.y, end: region.y + region.height, outputCount: outputHeight, areaOnly: true)
        let columns = horizontal.inputRange
        // Each output's taps as one SIMD4 of weights, zero past its count, when every output has
        // at most four (a reduction up to 3, or an enlargement): a load, a multiply and a sum.
        let fourTaps = horizontal.count.allSatisfy { $0 <= 4 }
            ? (0..<outputWidth).map { x in
                var taps = SIMD4<Float>()
                for tap in 0..<horizontal.count[x] { taps[tap] = horizontal.weights[x * horizontal.stride + tap] }
                return taps
            } : nil
        var row = [Float](repeating: 0, count: columns.count + 4)  // Zeros past the columns for the last loads.
        row.withUnsafeMutableBufferPointer { row in
            horizontal.first.withUnsafeBufferPointer { first in
                horizontal.count.withUnsafeBufferPointer { count in
                    horizontal.weights.withUnsafeBufferPointer { weights in
                        for y in 0..<outputHeight {
                            sumRows(
                                source, stride: stride, columns: columns, first: vertical.first[y],
                                weights: vertical.weights[(y * vertical.stride)..<(y * vertical.stride + vertical.count[y])],
                                into: row)
                            let out = y * targetStride
                            if let fourTaps {
                                let floats = UnsafeRawPointer(row.baseAddress!)
                                func output(_ x: Int) -> Float {
                                    let samples = floats.loadUnaligned(
                                        fromByteOffset: (first[x] - columns.lowerBound) * MemoryLayout<Float>.stride,
                                        as: SIMD4<Float>.self)
                                    return (fourTaps[x] * samples).sum()
                                }
                                // Four outputs at a time, rounded together.
                                var x = 0
                                while x + 4 <= outputWidth {
                                    let sums = SIMD4(output(x), output(x + 1), output(x + 2), output(x + 3))
                                    let biased = sums.clamped(lowerBound: .zero, upperBound: SIMD4(repeating: 255)) + roundingBias
                                    UnsafeMutableRawPointer(target.baseAddress! + out + x).storeBytes(
                                        of: SIMD4<UInt8>(truncatingIfNeeded: unsafeBitCast(biased, to: SIMD4<UInt32>.self)),
                                        as: SIMD4<UInt8>.self)
                                    x += 4
                                }
                                while x < outputWidth {
                                    target[out + x] = rounded(output(x))
                                    x += 1
                                }
                            } else {
                                let taps = horizontal.stride
                                for x in 0..<outputWidth {
                                    var sum: Float = 0
                                    let base = first[x] - columns.lowerBound
                                    for tap in 0..<count[x] { sum += weights[x * taps + tap] * row[base + tap] }
                                    target[out + x] = rounded(sum)
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// `row` = the sum of the source rows from `first` on, weighted by `weights`, over `columns`.
    private static func sumRows(
        _ source: UnsafeBufferPointer<UInt8>, stride: Int, columns: Range<Int>, first: Int, weights: ArraySlice<Float>,
        into row: UnsafeMutableBufferPointer<Float>
    ) {
        let count = columns.count
        let floats = UnsafeMutableRawPointer(row.baseAddress!)
        var isFirst = true
        for (tap, weight) in weights.enumerated() {
            let samples = UnsafeRawPointer(source.baseAddress! + (first + tap) * stride + columns.lowerBound)
            let scale = SIMD8<Float>(repeating: weight)
            var index = 0
            while index + 8 <= count {
                let bytes = samples.loadUnaligned(fromByteOffset: index, as: SIMD8<UInt8>.self)
                let value = scale * SIMD8<Float>(SIMD8<Int32>(truncatingIfNeeded: bytes))
                let offset = index * MemoryLayout<Float>.stride
                let sum = isFirst ? value : floats.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self) + value
                floats.storeBytes(of: sum, toByteOffset: offset, as: SIMD8<Float>.self)
                index += 8
            }
            while index < count {
                let value = weight * Float(samples.load(fromByteOffset: index, as: UInt8.self))
                row[index] = isFirst ? value : row[index] + value
                index += 1
            }
            isFirst = false
        }
    }

    /// 1.5 × 2²³: added to a float of 0…255, it leaves that float rounded to the nearest
    /// integer (ties to even) in the low bits of the sum's significand — a rounding and a
    /// conversion without a call or a check, four at a time as well as one.
    private static let roundingBias: Float = 12_582_912

    /// `value` clamped to 0…255 and rounded to the nearest integer (ties to even).
    @inline(__always)
    private static func rounded(_ value: Float) -> UInt8 {
        UInt8(truncatingIfNeeded: (max(0, min(255, value)) + roundingBias).bitPattern)
    }
}

extension YUV420Planes {
    /// The centre square of these planes (the largest centred square of the image) scaled to
    /// `side` × `side` (`side` even), as planes: the luma from the luma plane, each chroma
    /// plane's from its own samples, none converted to RGB — what the encoder would take from
    /// the RGB square, resampled in the space it encodes in.
    func centreSquare(side: Int) -> YUV420Planes {
        precondition(side > 0 && side % 2 == 0)
        let region = CenterSquare(width: width, height: height).rect
        var out = YUV420Planes(width: side, height: side)
        let (lumaWidth, chromaWidth, chromaHeight) = (self.lumaWidth, self.chromaWidth, self.chromaHeight)
        luma.withUnsafeBufferPointer { source in
            out.luma.withUnsafeMutableBufferPointer { target in
                PlaneResampler.resample(
                    source, stride: lumaWidth, width: width, height: height, region: region, into: target, stride: side,
                    outputWidth: side, outputHeight: side)
            }
        }
        for (source, keyPath) in [(blue, \YUV420Planes.blue), (red, \YUV420Planes.red)] {
            source.withUnsafeBufferPointer { source in
                out[keyPath: keyPath].withUnsafeMutableBufferPointer { target in
                    PlaneResampler.resample(
                        source, stride: chromaWidth, width: chromaWidth, height: chromaHeight,
                        region: region.scaled(by: 0.5), into: target, stride: side / 2, outputWidth: side / 2,
                        outputHeight: side / 2)
                }
            }
        }
        return out
    }
}
