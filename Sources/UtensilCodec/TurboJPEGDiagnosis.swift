/// Sorts libturbojpeg's messages into the codec's errors.
///
/// libturbojpeg returns -1 for warnings too (`tjGetErrorCode` == `TJERR_WARNING`). Some mean
/// the picture is damaged (data missing or undecodable); others are cosmetic and the picture
/// is fine. libjpeg reports only its *first* warning, which is why truncation is checked
/// separately, before decoding, by ``JPEGMarkers/layout(_:)``.
enum TurboJPEGDiagnosis {
    /// Warnings that leave grey or smeared blocks in the picture.
    private static let damagingWarnings = [
        "premature end", "bad huffman", "bad arithmetic", "found marker", "inconsistent progression",
    ]

    static func isDamaging(warning message: String) -> Bool {
        let lowered = message.lowercased()
        return damagingWarnings.contains { lowered.contains($0) }
    }

    /// The error for a fatal libturbojpeg failure.
    static func error(fatal message: String) -> ImageCodecError {
        let lowered = message.lowercased()
        if lowered.contains("unsupported jpeg data precision") || lowered.contains("unsupported jpeg process")
            || lowered.contains("could not determine subsampling type")
            || lowered.contains("unsupported color conversion")
        {
            return .unsupported(format: SniffedFormat.jpeg.displayName, detail: message)
        }
        return .corrupt(detail: message)
    }
}
