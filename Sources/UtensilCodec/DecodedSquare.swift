/// A decoder's result: the centre square already scaled to the thumbnail size, still in the
/// stored (not yet oriented) pixel order, plus what the header said, and the preview when
/// one was asked for.
struct DecodedSquare {
    /// `size * size * 3` bytes, RGB8.
    var pixels: [UInt8]
    var storedWidth: Int
    var storedHeight: Int
    var orientation: Orientation
    /// The whole image at preview size, stored pixel order; nil when none was asked for.
    var preview: DecodedPreview? = nil
}

/// The whole image scaled to the preview's size, in the stored (not yet oriented) pixel order.
struct DecodedPreview {
    /// How the pixels are held: RGB8, or a JPEG's own 4:2:0 planes (its decode, never converted).
    enum Storage {
        /// `width * height * 3` bytes, RGB8.
        case rgb([UInt8])
        case planes(YUV420Planes)
    }

    var storage: Storage
    var width: Int
    var height: Int

    init(pixels: [UInt8], width: Int, height: Int) {
        self.storage = .rgb(pixels)
        self.width = width
        self.height = height
    }

    init(planes: YUV420Planes) {
        self.storage = .planes(planes)
        self.width = planes.width
        self.height = planes.height
    }

    /// `width * height * 3` bytes, RGB8 (planes are converted: for callers that need pixels).
    var pixels: [UInt8] {
        switch storage {
        case .rgb(let pixels): pixels
        case .planes(let planes): planes.rgb()
        }
    }
}
