/// The file-name extensions of the photos utensild takes: the one list every door reads
/// (the ingest's check of the bytes against the name, rejection messages, the gallery's
/// upload picker and media types, the API document's schema).
public enum PhotoExtension: String, CaseIterable, Sendable {
    case jpg, jpeg, png, heic, heif, avif, webp

    /// The extensions as a sentence lists them: ".jpg, .jpeg, … and .webp".
    public static var listed: String {
        let dotted = allCases.map { "." + $0.rawValue }
        return dotted.dropLast().joined(separator: ", ") + " and " + dotted.last!
    }

    /// The media type a browser is told for an original with this extension.
    public var mediaType: String {
        switch self {
        case .jpg, .jpeg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        case .heic: "image/heic"
        case .heif: "image/heif"
        case .avif: "image/avif"
        }
    }
}
