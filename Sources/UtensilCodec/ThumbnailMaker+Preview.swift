extension ThumbnailMaker {
    /// The centre square of a photo (EXIF orientation applied) as `request.size` ×
    /// `request.size` RGB pixels, 3 bytes each, row by row: for terminal previews, which
    /// cannot decode JPEG themselves.
    public func makeRGBPreview(from bytes: UnsafeRawBufferPointer) throws(ImageCodecError) -> [UInt8] {
        let size = min(max(request.size, 1), 512)
        let maker = ThumbnailMaker(request: ThumbnailRequest(size: size, quality: request.quality, maxPixels: request.maxPixels))
        let square = try maker.decoder(for: Self.sniff(bytes)).decode(bytes)
        return square.orientation.apply(toSquare: square.pixels, side: size)
    }
}
