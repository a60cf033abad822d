import UtensilCodec
import UtensilLookalike

/// A photo's look-alike fingerprint, made from the grey miniature of the decode the ingest
/// makes anyway (the photo as displayed: EXIF orientation applied).
package enum PhotoFingerprint {
    /// The miniature's edge the decode is asked for (``IngestSettings/renditions``).
    package static let miniatureSide = 32

    private static let hash = PerceptualHash(side: miniatureSide)

    /// The fingerprint's 64 bits as the catalog stores them; nil when the decode made no
    /// miniature or the photo is (nearly) one flat tone, which would resemble every other.
    package static func of(_ thumbnail: Thumbnail) -> Int64? {
        guard let miniature = thumbnail.miniature, let fingerprint = try? hash.fingerprint(of: miniature.pixels) else { return nil }
        return Int64(bitPattern: fingerprint.bits)
    }
}
