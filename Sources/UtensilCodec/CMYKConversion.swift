/// CMYK → RGB without a colour profile: `R = (1 − C)(1 − K)` and so on.
///
/// Adobe applications (and libjpeg writing an Adobe APP14 marker) store CMYK *inverted*
/// (0 = full ink), so there the stored value already is `1 − C`.
enum CMYKConversion {
    /// Converts `pixelCount` CMYK8 pixels from `cmyk` into RGB8 `rgb`.
    static func convert(
        _ cmyk: UnsafeBufferPointer<UInt8>, into rgb: UnsafeMutableBufferPointer<UInt8>,
        pixelCount: Int, inverted: Bool
    ) {
        for pixel in 0..<pixelCount {
            var c = Int(cmyk[pixel * 4]), m = Int(cmyk[pixel * 4 + 1])
            var y = Int(cmyk[pixel * 4 + 2]), k = Int(cmyk[pixel * 4 + 3])
            if !inverted { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k }
            rgb[pixel * 3] = UInt8((c * k + 127) / 255)
            rgb[pixel * 3 + 1] = UInt8((m * k + 127) / 255)
            rgb[pixel * 3 + 2] = UInt8((y * k + 127) / 255)
        }
    }
}
