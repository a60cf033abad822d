import UtensilCodec
import UtensilCore

/// Which formats (read from the bytes) each photo extension (``PhotoExtension``, the one
/// list) may hold: `.heif` is the container's own name, so it takes HEIC and AVIF alike.
package enum PhotoFormats {
    package static let byExtension: [String: Set<SniffedFormat>] = Dictionary(
        uniqueKeysWithValues: PhotoExtension.allCases.map { ($0.rawValue, formats(of: $0)) })

    package static func formats(of photoExtension: PhotoExtension) -> Set<SniffedFormat> {
        switch photoExtension {
        case .jpg, .jpeg: [.jpeg]
        case .png: [.png]
        case .webp: [.webp]
        case .heic: [.heic]
        case .heif: [.heic, .avif]
        case .avif: [.avif]
        }
    }

    /// Drops (and originals, for `rethumb`) whose header is not within this many first bytes
    /// are read whole before their decoding cost is known.
    package static let headerBytes = 1 << 20

    /// The extensions, as the rejection messages list them.
    package static var listed: String { PhotoExtension.listed }

    /// The extension a photo of `format` should have, for formats utensild ingests.
    package static func usualExtension(of format: SniffedFormat) -> String? {
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
