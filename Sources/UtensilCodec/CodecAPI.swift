/// The public surface of the image codec: bytes in, a thumbnail (or a typed error) out.
/// The codec knows nothing of the catalog, the inbox or logging.

/// What the first bytes of a file say it is.
public enum SniffedFormat: String, Sendable, Equatable {
    case jpeg, png, webp
    /// HEIF with HEVC (HEIC) or AV1 (AVIF) images.
    case heic, avif
    /// Recognised image formats that utensild does not ingest.
    case gif, tiff, bmp, jpegXL = "jpeg-xl"
    /// Not an image format we recognise.
    case unknown

    /// A name for people ("WebP", "HEIC" …).
    public var displayName: String {
        switch self {
        case .jpeg: "JPEG"
        case .png: "PNG"
        case .gif: "GIF"
        case .webp: "WebP"
        case .heic: "HEIC"
        case .avif: "AVIF"
        case .tiff: "TIFF"
        case .bmp: "BMP"
        case .jpegXL: "JPEG XL"
        case .unknown: "unknown"
        }
    }
}

/// What a thumbnail should look like and which inputs to refuse before decoding.
public struct ThumbnailRequest: Sendable, Equatable {
    /// Edge of the square thumbnail in pixels.
    public var size: Int
    /// JPEG quality (1…100) of the thumbnail.
    public var quality: Int
    /// Images with more pixels than this are refused from their header, before any allocation.
    public var maxPixels: Int
    /// Long side in pixels of the display-size preview made from the same decode (the whole
    /// photo, aspect kept, never enlarged); 0 makes none. A JPEG's preview is its decode at
    /// the largest DCT scale (n/8) whose long side fits, so it may be smaller (1,512 px for a
    /// 4,032 × 3,024 photo).
    public var previewLongSide: Int
    /// JPEG quality (1…100) of the preview.
    public var previewQuality: Int
    /// Edge of the ``GreyMiniature`` made from the preview's decode (clamped to 0…256); 0 makes
    /// none, and neither does a request without a preview.
    public var miniatureSide: Int
    /// Edge of the grid square made from the preview's decode: the thumbnail's crop at a size
    /// for high-density screens (clamped to 0…4096); 0 makes none, and neither does a request
    /// without a preview.
    public var squareSide: Int
    /// JPEG quality (1…100) of the grid square.
    public var squareQuality: Int

    public init(
        size: Int = 180, quality: Int = 85, maxPixels: Int = 100_000_000, previewLongSide: Int = 0,
        previewQuality: Int = Self.defaultPreviewQuality, miniatureSide: Int = 0, squareSide: Int = 0,
        squareQuality: Int = Self.defaultSquareQuality
    ) {
        self.size = size
        self.quality = quality
        self.maxPixels = maxPixels
        self.previewLongSide = previewLongSide
        self.previewQuality = previewQuality
        self.miniatureSide = miniatureSide
        self.squareSide = squareSide
        self.squareQuality = squareQuality
    }

    /// The preview's long side utensild uses: a 390-point phone at 3× is 1,170 pixels wide, and
    /// a desktop page shows the photo at most about 1,000 points wide; 1,600 covers both (and a
    /// 2× screen at 800 points) while weighing a fraction of a 12 MP original.
    public static let defaultPreviewLongSide = 1600
    /// JPEG quality of previews: photos at display size, where 80 is indistinguishable from
    /// higher settings at a glance and a third smaller than 90.
    public static let defaultPreviewQuality = 80
    /// The grid square's edge utensild uses: a gallery card is 173 points wide on a 390-point
    /// phone (two columns) and 180 on a desktop, so a 3× phone needs 519 pixels and a 2× screen
    /// 360; 540 covers both (a 2× screen scales it down), so one size serves every density
    /// above 1×, where the 180-pixel thumbnail stays.
    public static let defaultSquareSide = 540
    /// JPEG quality of grid squares: seen at 2–3 device pixels a point, where compression
    /// artefacts are a third the size they are at 1×.
    public static let defaultSquareQuality = 75
}

/// The display-size rendition of a photo: the whole image as displayed, its long side at most
/// ``ThumbnailRequest/previewLongSide``, as a baseline JPEG.
public struct Preview: Sendable, Equatable {
    /// Width as displayed (EXIF orientation applied).
    public var width: Int
    /// Height as displayed (EXIF orientation applied).
    public var height: Int
    /// The encoded JPEG.
    public var jpeg: [UInt8]

    public init(width: Int, height: Int, jpeg: [UInt8]) {
        self.width = width
        self.height = height
        self.jpeg = jpeg
    }
}

/// The result of decoding a photo: its size as displayed and its thumbnail.
public struct Thumbnail: Sendable, Equatable {
    /// The format read from the bytes.
    public var format: SniffedFormat
    /// Width of the photo as displayed (EXIF orientation applied).
    public var width: Int
    /// Height of the photo as displayed (EXIF orientation applied).
    public var height: Int
    /// The EXIF orientation (1…8) that was applied; 1 when there was none.
    public var orientation: Int
    /// The encoded `size` × `size` JPEG thumbnail.
    public var jpeg: [UInt8]
    /// The display-size preview, when ``ThumbnailRequest/previewLongSide`` asked for one.
    public var preview: Preview?
    /// The grey miniature of the whole photo, when ``ThumbnailRequest/miniatureSide`` asked for one.
    public var miniature: GreyMiniature?
    /// The encoded `squareSide` × `squareSide` JPEG grid square (the thumbnail's crop, larger),
    /// when ``ThumbnailRequest/squareSide`` asked for one and there is a preview.
    public var square: [UInt8]?

    public init(
        format: SniffedFormat, width: Int, height: Int, orientation: Int, jpeg: [UInt8], preview: Preview? = nil,
        miniature: GreyMiniature? = nil, square: [UInt8]? = nil
    ) {
        self.square = square
        self.format = format
        self.width = width
        self.height = height
        self.orientation = orientation
        self.jpeg = jpeg
        self.preview = preview
        self.miniature = miniature
    }
}

/// Why a photo could not be turned into a thumbnail. Each case carries what a person needs.
public enum ImageCodecError: Error, Sendable, Equatable {
    /// The bytes are no image format we recognise.
    case unrecognizedFormat
    /// A recognised format (or variant, such as a 12-bit JPEG) that utensild does not decode.
    case unsupported(format: String, detail: String)
    /// The header announces more pixels than allowed; nothing was decoded.
    case tooManyPixels(width: Int, height: Int, limit: Int)
    /// The data is damaged or truncated; `detail` is the decoder's own words.
    case corrupt(detail: String)
    /// Metadata (PNG text, ICC profile or EXIF chunks) beyond what the decoder reads: more than
    /// `chunkLimit` bytes in one chunk or `totalLimit` in all, once decompressed.
    case tooMuchMetadata(chunkLimit: Int, totalLimit: Int)
}
