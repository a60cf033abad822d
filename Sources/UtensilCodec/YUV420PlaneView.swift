/// 4:2:0 planes read where they are held — ``YUV420Planes``' own arrays (a JPEG's decode), or
/// a HEIF image's planes inside libheif — with each plane's rows `stride` bytes apart: what
/// reading the image at half resolution needs (``halfResolutionRow(_:columns:into:)``).
///
/// The half-resolution image is the whole 2 × 2 blocks of luma: ``halfWidth`` × ``halfHeight``.
/// The initialiser checks that every plane holds them (and the chroma sample of each), so that
/// no read can leave a plane however the planes were sized.
struct YUV420PlaneView {
    let luma: UnsafeRawBufferPointer
    let lumaStride: Int
    let blue: UnsafeRawBufferPointer
    let blueStride: Int
    let red: UnsafeRawBufferPointer
    let redStride: Int
    /// The half-resolution size: one pixel per whole 2 × 2 block of luma.
    let halfWidth: Int
    let halfHeight: Int

    /// Nil unless the luma plane holds `2 * halfWidth` × `2 * halfHeight` samples and each
    /// chroma plane `halfWidth` × `halfHeight`, at their strides.
    init?(
        luma: UnsafeRawBufferPointer, lumaStride: Int, blue: UnsafeRawBufferPointer, blueStride: Int,
        red: UnsafeRawBufferPointer, redStride: Int, halfWidth: Int, halfHeight: Int
    ) {
        func holds(_ plane: UnsafeRawBufferPointer, stride: Int, width: Int, height: Int) -> Bool {
            stride >= width && (height - 1).multipliedReportingOverflow(by: stride).partialValue + width <= plane.count
        }
        guard halfWidth > 0, halfHeight > 0, halfWidth <= Int(Int32.max), halfHeight <= Int(Int32.max),
            holds(luma, stride: lumaStride, width: 2 * halfWidth, height: 2 * halfHeight),
            holds(blue, stride: blueStride, width: halfWidth, height: halfHeight),
            holds(red, stride: redStride, width: halfWidth, height: halfHeight)
        else { return nil }
        (self.luma, self.lumaStride, self.blue, self.blueStride, self.red, self.redStride) =
            (luma, lumaStride, blue, blueStride, red, redStride)
        (self.halfWidth, self.halfHeight) = (halfWidth, halfHeight)
    }

    /// One row of the image at half its width and height, RGB8, for `columns` (within
    /// `0..<halfWidth`) only: each pixel the mean of a 2 × 2 block of luma with the chroma
    /// sample that covers it — the 2 × 2 area average of the full image (its chroma as coded),
    /// which is what a thumbnail's first reduction stage computes anyway. Eight pixels at a
    /// time, with the integer arithmetic of ``halfResolutionPixel(_:row:)``, bit for bit.
    func halfResolutionRow(_ row: Int, columns: Range<Int>, into rgb: UnsafeMutableBufferPointer<UInt8>) {
        precondition(
            (0..<halfHeight).contains(row) && columns.lowerBound >= 0 && columns.upperBound <= halfWidth
                && rgb.count >= columns.count * 3)
        let top = 2 * row * lumaStride, bottom = top + lumaStride
        let blueRow = row * blueStride, redRow = row * redStride
        var x = columns.lowerBound, out = 0
        while x + 8 <= columns.upperBound {
            let upper = luma.loadUnaligned(fromByteOffset: top + 2 * x, as: SIMD16<UInt8>.self)
            let lower = luma.loadUnaligned(fromByteOffset: bottom + 2 * x, as: SIMD16<UInt8>.self)
            let sum = SIMD8<Int32>(truncatingIfNeeded: upper.evenHalf) &+ SIMD8<Int32>(truncatingIfNeeded: upper.oddHalf)
                &+ SIMD8<Int32>(truncatingIfNeeded: lower.evenHalf) &+ SIMD8<Int32>(truncatingIfNeeded: lower.oddHalf)
            let cb = SIMD8<Int32>(truncatingIfNeeded: blue.loadUnaligned(fromByteOffset: blueRow + x, as: SIMD8<UInt8>.self)) &- 128
            let cr = SIMD8<Int32>(truncatingIfNeeded: red.loadUnaligned(fromByteOffset: redRow + x, as: SIMD8<UInt8>.self)) &- 128
            let y = sum &<< 14 &+ 32768
            let r = Self.clamp((y &+ 91_881 &* cr) &>> 16)
            let g = Self.clamp((y &- 22_554 &* cb &- 46_802 &* cr) &>> 16)
            let b = Self.clamp((y &+ 116_130 &* cb) &>> 16)
            for lane in 0..<8 {
                rgb[out] = r[lane]
                rgb[out + 1] = g[lane]
                rgb[out + 2] = b[lane]
                out += 3
            }
            x += 8
        }
        while x < columns.upperBound {
            (rgb[out], rgb[out + 1], rgb[out + 2]) = halfResolutionPixel(x, row: row)
            out += 3
            x += 1
        }
    }

    /// Pixel `x` of half-resolution row `row`, RGB8: the 2 × 2 luma block's sum with its chroma
    /// sample, converted (see ``halfResolutionRow(_:columns:into:)``).
    func halfResolutionPixel(_ x: Int, row: Int) -> (UInt8, UInt8, UInt8) {
        precondition((0..<halfWidth).contains(x) && (0..<halfHeight).contains(row))
        let top = 2 * row * lumaStride + 2 * x, bottom = top + lumaStride
        let sum = Int32(luma[top]) + Int32(luma[top + 1]) + Int32(luma[bottom]) + Int32(luma[bottom + 1])
        var pixel: (UInt8, UInt8, UInt8) = (0, 0, 0)
        withUnsafeMutableBytes(of: &pixel) { bytes in
            bytes.withMemoryRebound(to: UInt8.self) { out in
                Self.convert(
                    luma4: sum, blue: Int32(blue[row * blueStride + x]), red: Int32(red[row * redStride + x]), into: out,
                    at: 0)
            }
        }
        return pixel
    }

    /// JFIF's YCbCr → RGB (BT.601, full range) in 16-bit fixed point, from four times the luma
    /// (a sum of four samples) and one chroma pair; rounded, clamped to 0…255.
    @inline(__always)
    static func convert(luma4: Int32, blue: Int32, red: Int32, into out: UnsafeMutableBufferPointer<UInt8>, at index: Int) {
        // Luma × 65536, rounded to nearest (the 2 × 2 sum's own rounding included).
        let y = luma4 << 14 + 32768
        let cb = blue - 128, cr = red - 128
        out[index] = clamp((y + 91_881 * cr) >> 16)  // 1.402
        out[index + 1] = clamp((y - 22_554 * cb - 46_802 * cr) >> 16)  // 0.344136, 0.714136
        out[index + 2] = clamp((y + 116_130 * cb) >> 16)  // 1.772
    }

    @inline(__always)
    private static func clamp(_ value: Int32) -> UInt8 {
        UInt8(truncatingIfNeeded: min(max(value, 0), 255))
    }

    @inline(__always)
    private static func clamp(_ values: SIMD8<Int32>) -> SIMD8<UInt8> {
        SIMD8<UInt8>(truncatingIfNeeded: values.clamped(lowerBound: .zero, upperBound: SIMD8(repeating: 255)))
    }
}
