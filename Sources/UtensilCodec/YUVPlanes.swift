/// A decoded JPEG as libjpeg holds it before colour conversion: a luma plane and two chroma
/// planes at half its width and height (4:2:0, JFIF's full-range YCbCr), each row by row
/// without padding between rows.
///
/// Decoding into planes skips libjpeg's chroma upsampling and colour conversion, and encoding
/// from them skips the encoder's conversion and chroma downsampling: a preview that is the
/// decode itself is re-encoded without ever being RGB. The thumbnail reads the planes at half
/// resolution (see ``YUV420PlaneView/halfResolutionRow(_:columns:into:)``).
struct YUV420Planes {
    /// The image's size in pixels.
    let width: Int
    let height: Int
    /// The luma plane: `lumaWidth` × `lumaHeight` (the image's size rounded up to even, as
    /// libjpeg pads it; the padding repeats the edge blocks' content).
    var luma: [UInt8]
    /// The chroma planes: `chromaWidth` × `chromaHeight` each.
    var blue: [UInt8]
    var red: [UInt8]

    var lumaWidth: Int { chromaWidth * 2 }
    var lumaHeight: Int { chromaHeight * 2 }
    var chromaWidth: Int { (width + 1) / 2 }
    var chromaHeight: Int { (height + 1) / 2 }

    /// Zero-filled planes for a `width` × `height` image.
    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        let chroma = ((width + 1) / 2) * ((height + 1) / 2)
        luma = [UInt8](repeating: 0, count: chroma * 4)
        blue = [UInt8](repeating: 0, count: chroma)
        red = [UInt8](repeating: 0, count: chroma)
    }

    /// The bytes the three planes take.
    static func byteCount(width: Int, height: Int) -> Int {
        ((width + 1) / 2) * ((height + 1) / 2) * 6
    }

    /// The planes as a ``YUV420PlaneView`` (half resolution: ``chromaWidth`` × ``chromaHeight``,
    /// the luma padded to even as libjpeg pads it), for the length of `body`.
    func withView<Result>(_ body: (YUV420PlaneView) -> Result) -> Result {
        luma.withUnsafeBytes { luma in
            blue.withUnsafeBytes { blue in
                red.withUnsafeBytes { red in
                    let view = YUV420PlaneView(
                        luma: luma, lumaStride: lumaWidth, blue: blue, blueStride: chromaWidth, red: red,
                        redStride: chromaWidth, halfWidth: chromaWidth, halfHeight: chromaHeight)
                    return body(view!)  // The planes are sized by their own initialiser.
                }
            }
        }
    }

    /// The whole image as RGB8 at full size (each chroma sample for its 2 × 2 block), for
    /// callers that need pixels rather than planes (tests, terminal previews).
    func rgb() -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        let lumaWidth = self.lumaWidth, chromaWidth = self.chromaWidth
        luma.withUnsafeBufferPointer { luma in
            blue.withUnsafeBufferPointer { blue in
                red.withUnsafeBufferPointer { red in
                    pixels.withUnsafeMutableBufferPointer { out in
                        for y in 0..<height {
                            for x in 0..<width {
                                let chroma = (y / 2) * chromaWidth + x / 2
                                YUV420PlaneView.convert(
                                    luma4: Int32(luma[y * lumaWidth + x]) * 4, blue: Int32(blue[chroma]),
                                    red: Int32(red[chroma]), into: out, at: (y * width + x) * 3)
                            }
                        }
                    }
                }
            }
        }
        return pixels
    }

    /// The image stood upright by `orientation`: each plane transformed alike. An odd side
    /// that the transform mirrors is first cut to even (one row or column of pixels), so that
    /// every chroma sample still covers the same 2 × 2 block of luma.
    func oriented(_ orientation: Orientation) -> YUV420Planes {
        guard orientation != .up else { return self }
        let mirrorsX: Bool, mirrorsY: Bool
        switch orientation {
        case .up, .transposed: (mirrorsX, mirrorsY) = (false, false)
        case .mirrored, .rotated90CounterClockwise: (mirrorsX, mirrorsY) = (true, false)
        case .flippedVertically, .rotated90Clockwise: (mirrorsX, mirrorsY) = (false, true)
        case .rotated180, .transverse: (mirrorsX, mirrorsY) = (true, true)
        }
        let sourceWidth = mirrorsX ? width & ~1 : width, sourceHeight = mirrorsY ? height & ~1 : height
        let (outWidth, outHeight) = orientation.swapsAxes ? (sourceHeight, sourceWidth) : (sourceWidth, sourceHeight)
        var out = YUV420Planes(width: max(outWidth, 1), height: max(outHeight, 1))
        guard sourceWidth > 0, sourceHeight > 0 else { return out }
        Self.transform(
            luma, stride: lumaWidth, width: (sourceWidth + 1) / 2 * 2, height: (sourceHeight + 1) / 2 * 2,
            into: &out.luma, stride: out.lumaWidth, orientation)
        Self.transform(
            blue, stride: chromaWidth, width: (sourceWidth + 1) / 2, height: (sourceHeight + 1) / 2,
            into: &out.blue, stride: out.chromaWidth, orientation)
        Self.transform(
            red, stride: chromaWidth, width: (sourceWidth + 1) / 2, height: (sourceHeight + 1) / 2,
            into: &out.red, stride: out.chromaWidth, orientation)
        return out
    }

    /// Transforms the `width` × `height` top-left part of one plane (rows `stride` apart) into
    /// `target` (rows `targetStride` apart; `height` × `width` when the orientation swaps axes).
    private static func transform(
        _ source: [UInt8], stride: Int, width: Int, height: Int, into target: inout [UInt8], stride targetStride: Int,
        _ orientation: Orientation
    ) {
        let outWidth = orientation.swapsAxes ? height : width, outHeight = orientation.swapsAxes ? width : height
        // Source offset of output pixel (x, y) = origin + x * stepX + y * stepY.
        let lastX = width - 1, lastY = height - 1
        let (origin, stepX, stepY): (Int, Int, Int) = switch orientation {
        case .up: (0, 1, stride)
        case .mirrored: (lastX, -1, stride)
        case .rotated180: (lastY * stride + lastX, -1, -stride)
        case .flippedVertically: (lastY * stride, 1, -stride)
        case .transposed: (0, stride, 1)
        case .rotated90Clockwise: (lastY * stride, -stride, 1)
        case .transverse: (lastY * stride + lastX, -stride, -1)
        case .rotated90CounterClockwise: (lastX, stride, -1)
        }
        source.withUnsafeBufferPointer { from in
            target.withUnsafeMutableBufferPointer { to in
                for y in 0..<outHeight {
                    var offset = origin + y * stepY
                    let row = y * targetStride
                    for x in 0..<outWidth {
                        to[row + x] = from[offset]
                        offset += stepX
                    }
                }
            }
        }
    }
}
