/// One image format's decoder, straight to the thumbnail's source square. Each says, from the
/// header alone, how much memory its decode will take, so that callers can budget it.
protocol ImageDecoder {
    /// The bytes ``decode(_:)`` will allocate at its peak (besides `bytes` themselves), from the
    /// header alone: nothing is decoded, and `bytes` may be just the first part of the file.
    /// Throws what ``decode(_:)`` would throw for the same header.
    func decodeCost(_ bytes: UnsafeRawBufferPointer) throws(ImageCodecError) -> Int
    func decode(_ bytes: UnsafeRawBufferPointer) throws(ImageCodecError) -> DecodedSquare
}

extension JPEGDecoder: ImageDecoder {}
extension PNGDecoder: ImageDecoder {}
extension HEIFDecoder: ImageDecoder {}
extension WebPDecoder: ImageDecoder {}
