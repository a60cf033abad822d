/// A decoder's result: the centre square already scaled to the thumbnail size, still in the
/// stored (not yet oriented) pixel order, plus what the header said.
struct DecodedSquare {
    /// `size * size * 3` bytes, RGB8.
    var pixels: [UInt8]
    var storedWidth: Int
    var storedHeight: Int
    var orientation: Orientation
}
