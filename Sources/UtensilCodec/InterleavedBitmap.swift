/// A whole decoded 8-bit RGB or RGBA bitmap, as libheif and libwebp hand it out, and its way
/// into the resampler.
struct InterleavedBitmap {
    let base: UnsafePointer<UInt8>
    let width: Int
    let height: Int
    /// Bytes from one row to the next (at least `width × channels`).
    let stride: Int
    let hasAlpha: Bool
    var premultipliedAlpha = false

    /// The bitmap's centre square scaled to `size` × `size`, RGB8, alpha composited on white.
    func centerSquare(size: Int) -> [UInt8] {
        renditions(square: CenterSquare(width: width, height: height), size: size, preview: nil).square
    }

    /// The thumbnail's `square` (in this bitmap's pixels) scaled to `size` × `size` and, with a
    /// plan, the whole bitmap scaled to the preview's size; RGB8, alpha composited on white.
    func renditions(square: CenterSquare, size: Int, preview: PreviewPlan?) -> (square: [UInt8], preview: DecodedPreview?) {
        var resampler = RenditionResamplers(
            sourceWidth: width, sourceHeight: height, square: square, size: size, preview: preview)
        let columns = resampler.sourceColumns
        let channels = hasAlpha ? 4 : 3
        var rgbRow = [UInt8](repeating: 0, count: hasAlpha ? columns.count * 3 : 0)
        for y in 0..<height where resampler.needs(row: y) {
            let row = UnsafeBufferPointer(start: base + y * stride + columns.lowerBound * channels, count: columns.count * channels)
            if hasAlpha {
                rgbRow.withUnsafeMutableBufferPointer { rgb in
                    AlphaCompositing.onWhite(
                        UnsafeRawBufferPointer(row), into: rgb, pixelCount: columns.count, premultiplied: premultipliedAlpha)
                    resampler.add(row: UnsafeBufferPointer(rgb), y: y)
                }
            } else {
                resampler.add(row: row, y: y)
            }
        }
        return resampler.finish()
    }
}
