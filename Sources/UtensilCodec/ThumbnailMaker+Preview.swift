extension ThumbnailMaker {
    /// The centre square of a photo (EXIF orientation applied) as `request.size` ×
    /// `request.size` RGB pixels, 3 bytes each, row by row: for terminal previews, which
    /// cannot decode JPEG themselves.
    public func makeRGBPreview(from bytes: UnsafeRawBufferPointer) throws(ImageCodecError) -> [UInt8] {
        let size = min(max(request.size, 1), 512)
        let square: DecodedSquare
        switch Self.sniff(bytes) {
        case .jpeg: square = try JPEGDecoder(size: size, maxPixels: request.maxPixels).decode(bytes)
        case .png: square = try PNGDecoder(size: size, maxPixels: request.maxPixels).decode(bytes)
        case .unknown: throw .unrecognizedFormat
        case let other: throw .unsupported(format: other.displayName, detail: "only JPEG and PNG images are accepted")
        }
        return square.orientation.apply(toSquare: square.pixels, side: size)
    }
}
