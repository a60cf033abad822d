import UtensilCodec
import UtensilCore

/// Which formats (read from the bytes) each photo extension (``PhotoExtension``, the one
/// list) may hold: `.heif` is the container's own name, so it takes HEIC and AVIF alike.
enum PhotoFormats {
    static let byExtension: [String: Set<SniffedFormat>] = Dictionary(
        uniqueKeysWithValues: PhotoExtension.allCases.map { ($0.rawValue, formats(of: $0)) })

    static func formats(of photoExtension: PhotoExtension) -> Set<SniffedFormat> {
        switch photoExtension {
        case .jpg, .jpeg: [.jpeg]
        case .png: [.png]
        case .webp: [.webp]
        case .heic: [.heic]
        case .heif: [.heic, .avif]
        case .avif: [.avif]
        }
    }

    /// The extensions, as the rejection messages list them.
    static var listed: String { PhotoExtension.listed }

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
