/// The display-size rendition of a photo: the whole image, its long side scaled down to
/// `longSide` (never up), aspect kept to the nearest pixel. (A JPEG's is the largest of
/// libjpeg's DCT scales that fits instead: see `JPEGDecoder.plan`.)
struct PreviewPlan: Equatable {
    /// Size of the preview in the photo's stored pixel order (before EXIF orientation).
    let width: Int
    let height: Int

    /// A preview of exactly `width` × `height` (a JPEG's DCT-scaled decode).
    init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// The plan for a photo stored as `width` × `height`, or nil when `longSide` is 0 (no preview).
    init?(storedWidth width: Int, storedHeight height: Int, longSide: Int) {
        guard longSide > 0, width > 0, height > 0 else { return nil }
        let long = max(width, height)
        guard long > longSide else {
            (self.width, self.height) = (width, height)
            return
        }
        let scale = Double(longSide) / Double(long)
        self.width = width >= height ? longSide : max(1, Int((Double(width) * scale).rounded()))
        self.height = height > width ? longSide : max(1, Int((Double(height) * scale).rounded()))
    }

    /// Bytes making it takes at its peak: the finished RGB, its oriented copy and the
    /// encoder's output buffer (the resampler's float rows are a few dozen rows at most).
    var cost: Int { cost(resampled: true, rotated: true) }

    /// Bytes making it takes beyond the decode: the resampled RGB (none when the decode is the
    /// preview), an upright copy (only when an orientation is applied), libjpeg's output
    /// buffer (at most 1.5 bytes a pixel at 4:2:0) and the resampler's float rows.
    func cost(resampled: Bool, rotated: Bool) -> Int {
        let pixels = width * height
        return (resampled ? pixels * 3 + width * 3 * 4 * 64 : 0) + (rotated ? pixels * 3 : 0) + pixels * 3 / 2 + 65_536
    }

    /// The smallest size a `width` × `height` source may be decoded at and still give both the
    /// preview (this plan) and a thumbnail of edge `size`: at least the preview on each axis
    /// and `size` on each (or the whole source where it is smaller).
    static func minimumSource(width: Int, height: Int, size: Int, preview: PreviewPlan?) -> (width: Int, height: Int) {
        (max(min(size, width), preview?.width ?? 0), max(min(size, height), preview?.height ?? 0))
    }
}

/// The resamplers of one decode: the thumbnail's centre square and, when asked for, the
/// preview's whole image, fed the same rows.
struct RenditionResamplers {
    private var square: ThumbnailResampler
    private var preview: ThumbnailResampler?
    let previewPlan: PreviewPlan?
    /// The source columns read (both resamplers'); rows are passed for these columns only.
    let sourceColumns: Range<Int>

    /// - Parameters:
    ///   - sourceWidth, sourceHeight: the decoded (possibly scaled) image rows come from.
    ///   - square: the thumbnail's centre square, in source pixels.
    ///   - size: the thumbnail edge.
    ///   - preview: the preview's size, made from the whole source; nil for none.
    ///   - whole: the whole image in source pixels, when the source's own size rounds it (a
    ///     half-resolution source of an odd-sized photo: half a pixel more); the source's size
    ///     when nil.
    init(
        sourceWidth: Int, sourceHeight: Int, square region: CenterSquare, size: Int, preview: PreviewPlan?,
        whole: SourceRect? = nil
    ) {
        square = ThumbnailResampler(sourceWidth: sourceWidth, sourceHeight: sourceHeight, region: region, size: size)
        previewPlan = preview
        if let preview {
            let resampler = ThumbnailResampler(
                sourceWidth: sourceWidth, sourceHeight: sourceHeight,
                region: whole ?? SourceRect(width: sourceWidth, height: sourceHeight), outputWidth: preview.width,
                outputHeight: preview.height)
            self.preview = resampler
            sourceColumns = min(square.sourceColumns.lowerBound, resampler.sourceColumns.lowerBound)
                ..< max(square.sourceColumns.upperBound, resampler.sourceColumns.upperBound)
        } else {
            self.preview = nil
            sourceColumns = square.sourceColumns
        }
    }

    /// Whether source row `y` contributes to either.
    func needs(row y: Int) -> Bool {
        square.needs(row: y) || preview?.needs(row: y) == true
    }

    /// Adds source row `y`: RGB8 pixels of ``sourceColumns`` only. Rows must come in increasing order.
    mutating func add(row: UnsafeBufferPointer<UInt8>, y: Int) {
        Self.add(row, y: y, columns: sourceColumns, to: &square)
        if var resampler = preview {
            preview = nil  // keep its buffers uniquely referenced while it is mutated
            Self.add(row, y: y, columns: sourceColumns, to: &resampler)
            preview = resampler
        }
    }

    private static func add(
        _ row: UnsafeBufferPointer<UInt8>, y: Int, columns: Range<Int>, to resampler: inout ThumbnailResampler
    ) {
        guard resampler.needs(row: y) else { return }
        let start = (resampler.sourceColumns.lowerBound - columns.lowerBound) * 3
        let end = start + resampler.sourceColumns.count * 3
        guard start >= 0, end <= row.count else { return }
        resampler.add(row: UnsafeBufferPointer(rebasing: row[start..<end]), y: y)
    }

    /// The thumbnail's square (`size * size * 3` bytes) and the preview's pixels, RGB8.
    mutating func finish() -> (square: [UInt8], preview: DecodedPreview?) {
        var made: DecodedPreview?
        if var resampler = preview {
            preview = nil
            made = DecodedPreview(pixels: resampler.finish(), width: resampler.outputWidth, height: resampler.outputHeight)
        }
        return (square.finish(), made)
    }
}
