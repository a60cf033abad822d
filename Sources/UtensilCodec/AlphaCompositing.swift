/// Transparent pixels shown as on a white page: thumbnails are JPEGs, which have no alpha.
enum AlphaCompositing {
    /// RGBA8 → RGB8 over white. `premultiplied` colour values already hold `colour × alpha`
    /// (as some HEIF encoders store them), so only the white part is added.
    static func onWhite(
        _ rgba: UnsafeRawBufferPointer, into rgb: UnsafeMutableBufferPointer<UInt8>, pixelCount: Int,
        premultiplied: Bool = false
    ) {
        for pixel in 0..<pixelCount {
            let alpha = Int(rgba[pixel * 4 + 3])
            for channel in 0..<3 {
                let value = Int(rgba[pixel * 4 + channel])
                rgb[pixel * 3 + channel] =
                    alpha == 255 ? UInt8(value)
                    : premultiplied ? UInt8(min(255, value + 255 - alpha))
                    : UInt8((value * alpha + 255 * (255 - alpha) + 127) / 255)
            }
        }
    }
}
