import UtensilCodec

/// The photo file-name extensions utensild ingests, and which formats (read from the bytes)
/// each may hold: `.heif` is the container's own name, so it takes HEIC and AVIF alike.
enum PhotoFormats {
    static let byExtension: [String: Set<SniffedFormat>] = [
        "jpg": [.jpeg], "jpeg": [.jpeg], "png": [.png], "webp": [.webp],
        "heic": [.heic], "heif": [.heic, .avif], "avif": [.avif],
    ]

    /// The extensions, as the rejection messages list them.
    static let listed = ".jpg, .jpeg, .png, .heic, .heif, .avif and .webp"

    /// The extension a photo of `format` should have, for formats utensild ingests.
    static func usualExtension(of format: SniffedFormat) -> String? {
        switch format {
        case .jpeg: "jpg"
        case .png: "png"
        case .webp: "webp"
        case .heic: "heic"
        case .avif: "avif"
        case .gif, .tiff, .bmp, .jpegXL, .unknown: nil
        }
    }
}
