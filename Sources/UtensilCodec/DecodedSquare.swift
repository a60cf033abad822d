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
    /// `width * height * 3` bytes, RGB8.
    var pixels: [UInt8]
    var width: Int
    var height: Int
}
