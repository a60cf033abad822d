import CWebP

/// Decodes a WebP photo with libwebp: lossy, lossless, with alpha (composited on white), or
/// animated (its first frame, as the whole canvas shows it).
///
/// A still image is decoded cropped to its centre square and, when that is much larger than
/// the thumbnail, scaled down by libwebp on the way out (an area average), so a 24 MP WebP never
/// needs a full-size bitmap; the resampler makes the final step. An animation's first frame is
/// drawn on its full canvas by libwebp's animation decoder. Sizes are checked against
/// `maxPixels` from the header first.
struct WebPDecoder {
    let size: Int
    let maxPixels: Int
    /// The preview's long side; 0 for none.
    var previewSide = 0

    /// libwebp scales the centre square down to at most this many times the thumbnail's side.
    static let scaledSideFactor = 3

    func decodeCost(_ bytes: UnsafeRawBufferPointer) throws(ImageCodecError) -> Int {
        let features = try header(bytes, whole: false)
        let width = Int(features.width), height = Int(features.height)
        let preview = PreviewPlan(storedWidth: width, storedHeight: height, longSide: previewSide)
        let previewCost = preview?.cost ?? 0
        if features.has_animation != 0 {
            // The animation decoder's two canvases, and a (lossless, at worst) frame's ARGB.
            return width * height * 12 + previewCost
        }
        let output: Int
        if let preview {
            let scaled = wholeImageScale(width: width, height: height, preview: preview)
            output = scaled.width * scaled.height * (features.has_alpha != 0 ? 4 : 3) + previewCost
        } else {
            let side = min(width, height), scaledSide = min(side, size * Self.scaledSideFactor)
            output = scaledSide * scaledSide * (features.has_alpha != 0 ? 4 : 3)
        }
        if features.format == 2 {
            return width * height * 4 + output  // VP8L decodes the whole image to ARGB.
        }
        // VP8 keeps a few macroblock rows (and libwebp's rescaler its rows); an alpha plane is whole.
        return width * 256 + (features.has_alpha != 0 ? width * height : 0) + output
    }

    func decode(_ bytes: UnsafeRawBufferPointer) throws(ImageCodecError) -> DecodedSquare {
        let features = try header(bytes, whole: true)
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), let count = Self.riffEnd(bytes) else {
            throw .corrupt(detail: "the file is empty")
        }
        let width = Int(features.width), height = Int(features.height)
        let preview = PreviewPlan(storedWidth: width, storedHeight: height, longSide: previewSide)
        let made: (square: [UInt8], preview: DecodedPreview?)
        if features.has_animation != 0 {
            made = try firstFrame(base, count: count, preview: preview)
        } else if let preview {
            made = try wholeImage(
                base, count: count, width: width, height: height, hasAlpha: features.has_alpha != 0, preview: preview)
        } else {
            made = (try centreSquare(base, count: count, width: width, height: height, hasAlpha: features.has_alpha != 0), nil)
        }
        return DecodedSquare(pixels: made.square, storedWidth: width, storedHeight: height, orientation: .up, preview: made.preview)
    }

    /// The size libwebp scales the whole image down to when a preview is made: the smallest
    /// that still covers the preview and three times the thumbnail on the short side (as the
    /// centre square alone is), or the image's own size.
    func wholeImageScale(width: Int, height: Int, preview: PreviewPlan) -> (width: Int, height: Int) {
        let factor = min(1, max(
            Double(preview.width) / Double(width), Double(preview.height) / Double(height),
            Double(size * Self.scaledSideFactor) / Double(min(width, height))))
        guard factor < 1 else { return (width, height) }
        return (max(1, Int((Double(width) * factor).rounded(.up))), max(1, Int((Double(height) * factor).rounded(.up))))
    }

    /// A still image, whole (scaled by libwebp), for the thumbnail and the preview.
    private func wholeImage(
        _ base: UnsafePointer<UInt8>, count: Int, width: Int, height: Int, hasAlpha: Bool, preview: PreviewPlan
    ) throws(ImageCodecError) -> (square: [UInt8], preview: DecodedPreview?) {
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else { throw .corrupt(detail: "libwebp could not start a decoder") }
        let scaled = wholeImageScale(width: width, height: height, preview: preview)
        if scaled.width != width || scaled.height != height {
            config.options.use_scaling = 1
            config.options.scaled_width = Int32(scaled.width)
            config.options.scaled_height = Int32(scaled.height)
        }
        config.output.colorspace = hasAlpha ? MODE_RGBA : MODE_RGB
        try check(WebPDecode(base, count, &config))
        defer { WebPFreeDecBuffer(&config.output) }
        let output = config.output.u.RGBA
        guard let rgba = output.rgba, config.output.width > 0, config.output.height > 0 else {
            throw .corrupt(detail: "libwebp returned no image")
        }
        let bitmap = InterleavedBitmap(
            base: rgba, width: Int(config.output.width), height: Int(config.output.height),
            stride: Int(output.stride), hasAlpha: hasAlpha)
        return bitmap.renditions(square: CenterSquare(width: bitmap.width, height: bitmap.height), size: size, preview: preview)
    }

    /// The bitstream's features, its size checked against `maxPixels`. With `whole`, the file
    /// must also be as long as its RIFF header says (libwebp reads only what it needs: a file
    /// cut after that, in its metadata or later frames, is cut all the same).
    private func header(_ bytes: UnsafeRawBufferPointer, whole: Bool) throws(ImageCodecError) -> WebPBitstreamFeatures {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), let declared = Self.riffEnd(bytes) else {
            throw .corrupt(detail: "the file is too short for a WebP header")
        }
        guard !whole || declared <= bytes.count else {
            throw .corrupt(detail: "the WebP file ends before the length its RIFF header gives")
        }
        var features = WebPBitstreamFeatures()
        try check(WebPGetFeatures(base, min(declared, bytes.count), &features))
        let width = Int(features.width), height = Int(features.height)
        guard width > 0, height > 0 else { throw .corrupt(detail: "the WebP header gives no image size") }
        guard width * height <= maxPixels else {
            throw .tooManyPixels(width: width, height: height, limit: maxPixels)
        }
        return features
    }

    /// A still image: the centre square, cropped (and scaled) by libwebp.
    private func centreSquare(
        _ base: UnsafePointer<UInt8>, count: Int, width: Int, height: Int, hasAlpha: Bool
    ) throws(ImageCodecError) -> [UInt8] {
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else { throw .corrupt(detail: "libwebp could not start a decoder") }
        let side = min(width, height)
        config.options.use_cropping = 1
        config.options.crop_left = Int32((width - side) / 2)
        config.options.crop_top = Int32((height - side) / 2)
        config.options.crop_width = Int32(side)
        config.options.crop_height = Int32(side)
        let scaledSide = size * Self.scaledSideFactor
        if side > scaledSide {
            config.options.use_scaling = 1
            config.options.scaled_width = Int32(scaledSide)
            config.options.scaled_height = Int32(scaledSide)
        }
        config.output.colorspace = hasAlpha ? MODE_RGBA : MODE_RGB
        try check(WebPDecode(base, count, &config))
        defer { WebPFreeDecBuffer(&config.output) }
        let output = config.output.u.RGBA
        guard let rgba = output.rgba, config.output.width > 0, config.output.height > 0 else {
            throw .corrupt(detail: "libwebp returned no image")
        }
        return InterleavedBitmap(
            base: rgba, width: Int(config.output.width), height: Int(config.output.height),
            stride: Int(output.stride), hasAlpha: hasAlpha
        ).centerSquare(size: size)
    }

    /// An animation: the first frame, drawn on the canvas (transparent where it does not reach).
    private func firstFrame(
        _ base: UnsafePointer<UInt8>, count: Int, preview: PreviewPlan?
    ) throws(ImageCodecError) -> (square: [UInt8], preview: DecodedPreview?) {
        var options = WebPAnimDecoderOptions()
        guard WebPAnimDecoderOptionsInit(&options) != 0 else { throw .corrupt(detail: "libwebp could not start a decoder") }
        options.color_mode = MODE_RGBA
        options.use_threads = 0
        var data = WebPData(bytes: base, size: count)
        guard let decoder = WebPAnimDecoderNew(&data, &options) else {
            throw .corrupt(detail: "libwebp could not read the animation's frames")
        }
        defer { WebPAnimDecoderDelete(decoder) }
        var info = WebPAnimInfo()
        guard WebPAnimDecoderGetInfo(decoder, &info) != 0, info.canvas_width > 0, info.canvas_height > 0 else {
            throw .corrupt(detail: "libwebp could not read the animation's canvas")
        }
        var frame: UnsafeMutablePointer<UInt8>?
        var timestamp: Int32 = 0
        guard WebPAnimDecoderGetNext(decoder, &frame, &timestamp) != 0, let frame else {
            throw .corrupt(detail: "the animation's first frame cannot be decoded")
        }
        let canvasWidth = Int(info.canvas_width), canvasHeight = Int(info.canvas_height)
        return InterleavedBitmap(
            base: frame, width: canvasWidth, height: canvasHeight, stride: canvasWidth * 4, hasAlpha: true
        ).renditions(
            square: CenterSquare(width: canvasWidth, height: canvasHeight), size: size,
            preview: preview.flatMap { _ in
                PreviewPlan(storedWidth: canvasWidth, storedHeight: canvasHeight, longSide: previewSide)
            })
    }

    /// The end of the RIFF container its header declares (8 + the little-endian size).
    static func riffEnd(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard bytes.count >= 12 else { return nil }
        return 8 + (4..<8).reversed().reduce(0) { $0 << 8 | Int(bytes[$1]) }
    }

    /// Maps a libwebp status to the codec's errors.
    private func check(_ status: VP8StatusCode) throws(ImageCodecError) {
        switch status {
        case VP8_STATUS_OK:
            return
        case VP8_STATUS_NOT_ENOUGH_DATA:
            throw .corrupt(detail: "the WebP data ends early")
        case VP8_STATUS_UNSUPPORTED_FEATURE:
            throw .unsupported(format: SniffedFormat.webp.displayName, detail: "libwebp does not decode this kind of WebP")
        case VP8_STATUS_OUT_OF_MEMORY:
            throw .corrupt(detail: "libwebp ran out of memory")
        default:
            throw .corrupt(detail: "the WebP bitstream is damaged (libwebp status \(status.rawValue))")
        }
    }
}
