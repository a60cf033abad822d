extension ThumbnailMaker {
    /// Memory for what every decode allocates whatever the image: decoder state, the resampler's
    /// rows and the thumbnail.
    public static let decodeOverhead = 4 << 20

    /// The bytes ``makeThumbnail(from:)`` will allocate for `bytes` at its peak (besides `bytes`
    /// themselves), known from the header alone, before anything is decoded: so that a caller
    /// can budget memory across decodes. `bytes` may be just the first part of a file, as long
    /// as it holds the header.
    ///
    /// Each decoder answers for its format: the full bitmap where it must hold one (an
    /// interlaced PNG), the coefficient buffer where libjpeg must (a progressive JPEG), a few
    /// rows otherwise.
    ///
    /// - Throws: what ``makeThumbnail(from:)`` throws for the same header.
    public func decodeCost(of bytes: UnsafeRawBufferPointer) throws(ImageCodecError) -> Int {
        try decoder(for: Self.sniff(bytes)).decodeCost(bytes) + Self.decodeOverhead + gridSquareCost
    }

    /// The grid square's share beyond the decode (none when none is asked for): its resampled
    /// pixels, their upright copy, the encoder's output and the resampler's float rows.
    var gridSquareCost: Int {
        let side = squareSide
        guard side > 0, previewSide > 0 else { return 0 }
        return side * side * 3 * 3 + side * 3 * 4 * 64
    }
}
