/// Turns the bytes of a JPEG, PNG, HEIC, AVIF or WebP photo into a square thumbnail.
///
/// Synchronous, pure (no files, no logging, no shared state) and safe to call from many threads
/// at once. Hostile bytes end in an ``ImageCodecError``, never a crash: sizes are checked from
/// the header against ``ThumbnailRequest/maxPixels`` before anything large is allocated.
public struct ThumbnailMaker: Sendable {
    public let request: ThumbnailRequest

    /// `request.size` is clamped to 1…4096 and `request.quality` to 1…100.
    public init(request: ThumbnailRequest) {
        self.request = request
    }

    /// The thumbnail edge in pixels: `request.size` clamped to 1…4096.
    var edge: Int { min(max(request.size, 1), 4096) }

    /// The preview's long side: `request.previewLongSide` clamped to 0…8192 (0: none).
    var previewSide: Int { min(max(request.previewLongSide, 0), 8192) }

    /// The miniature's edge: `request.miniatureSide` clamped to 0…256 (0: none).
    var miniatureSide: Int { min(max(request.miniatureSide, 0), 256) }

    /// Reads the format from the first bytes (magic numbers only; nothing is decoded).
    public static func sniff(_ bytes: UnsafeRawBufferPointer) -> SniffedFormat {
        FormatSniffer.sniff(bytes)
    }

    /// Decodes `bytes` and makes the thumbnail: the centre square of the photo as displayed
    /// (EXIF orientation applied; for HEIF, its rotation and mirroring), scaled to `size` ×
    /// `size`, alpha composited on white, encoded as a baseline JPEG at `quality`. With a
    /// `previewLongSide`, also the preview from the same decode: the whole photo as displayed,
    /// its long side scaled down to that (never up), encoded at `previewQuality`; with a
    /// `miniatureSide` too, the ``GreyMiniature`` of that decode; with a `squareSide` too, the
    /// grid square: the thumbnail's crop from that decode at `squareSide`, at `squareQuality`.
    ///
    /// - Throws: ``ImageCodecError/unrecognizedFormat`` for unknown (or empty) bytes,
    ///   ``ImageCodecError/unsupported(format:detail:)`` for other image formats and JPEG
    ///   variants libturbojpeg cannot decode (or HEIF and WebP features libheif and libwebp
    ///   lack), ``ImageCodecError/tooManyPixels(width:height:limit:)``
    ///   from the header alone, ``ImageCodecError/corrupt(detail:)`` for damaged or truncated data,
    ///   ``ImageCodecError/tooMuchMetadata(chunkLimit:totalLimit:)`` for PNG metadata bombs.
    public func makeThumbnail(from bytes: UnsafeRawBufferPointer) throws(ImageCodecError) -> Thumbnail {
        let size = edge
        let format = Self.sniff(bytes)
        let square = try decoder(for: format).decode(bytes)
        let upright = square.orientation.apply(toSquare: square.pixels, side: size)
        let jpeg = try JPEGEncoder.encode(rgb: upright, width: size, height: size, quality: request.quality)
        let swapped = square.orientation.swapsAxes
        return Thumbnail(
            format: format,
            width: swapped ? square.storedHeight : square.storedWidth,
            height: swapped ? square.storedWidth : square.storedHeight,
            orientation: square.orientation.rawValue,
            jpeg: jpeg,
            preview: try square.preview.map { preview throws(ImageCodecError) in
                try encode(preview, orientation: square.orientation)
            },
            miniature: miniatureSide > 0 ? square.preview.map {
                GreyMiniature(preview: $0, side: miniatureSide, orientation: square.orientation)
            } : nil,
            square: try encodeGridSquare(of: square))
    }

    /// Stands the preview upright and encodes it.
    private func encode(_ preview: DecodedPreview, orientation: Orientation) throws(ImageCodecError) -> Preview {
        switch preview.storage {
        case .rgb(let pixels):
            let upright = orientation.apply(to: pixels, width: preview.width, height: preview.height)
            let (width, height) = orientation.swapsAxes ? (preview.height, preview.width) : (preview.width, preview.height)
            let jpeg = try JPEGEncoder.encode(rgb: upright, width: width, height: height, quality: request.previewQuality)
            return Preview(width: width, height: height, jpeg: jpeg)
        case .planes(let planes):
            let upright = planes.oriented(orientation)
            let jpeg = try JPEGEncoder.encode(planes: upright, quality: request.previewQuality)
            return Preview(width: upright.width, height: upright.height, jpeg: jpeg)
        }
    }
}

extension ThumbnailMaker {
    /// The decoder of `format`, or the error for a format utensild does not take.
    func decoder(for format: SniffedFormat) throws(ImageCodecError) -> any ImageDecoder {
        switch format {
        case .jpeg:
            JPEGDecoder(size: edge, maxPixels: request.maxPixels, previewSide: previewSide)
        case .png:
            PNGDecoder(size: edge, maxPixels: request.maxPixels, previewSide: previewSide)
        case .heic, .avif:
            HEIFDecoder(size: edge, maxPixels: request.maxPixels, format: format, previewSide: previewSide)
        case .webp:
            WebPDecoder(size: edge, maxPixels: request.maxPixels, previewSide: previewSide)
        case .unknown:
            throw .unrecognizedFormat
        case .gif, .tiff, .bmp, .jpegXL:
            throw .unsupported(
                format: format.displayName, detail: "only JPEG, PNG, HEIC, AVIF and WebP images are accepted")
        }
    }
}

extension ThumbnailMaker {
    /// The libjpeg DCT scaling factor `makeThumbnail` decodes a `width` × `height` JPEG at:
    /// the smallest that still covers the thumbnail (and the preview, when one is asked for).
    /// For benchmarks that measure the decode floor at the same scale.
    public func jpegDecodeScale(width: Int, height: Int) -> (numerator: Int, denominator: Int) {
        let decoder = JPEGDecoder(size: edge, maxPixels: request.maxPixels, previewSide: previewSide)
        let scale = decoder.plan(width: width, height: height, isCMYK: false).scale
        return (scale.num, scale.denom)
    }
}
