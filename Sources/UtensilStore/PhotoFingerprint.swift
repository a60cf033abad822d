import UtensilCodec
import UtensilLookalike

/// A photo's look-alike fingerprint, made from the grey miniature of the decode the ingest
/// makes anyway (the photo as displayed: EXIF orientation applied), and the finer miniature
/// that confirms a near fingerprint (``CopyConfirmation``).
package enum PhotoFingerprint {
    /// The miniature's edge the decode is asked for (``IngestSettings/renditions``).
    package static let miniatureSide = 32

    private static let hash = PerceptualHash(side: miniatureSide)

    /// Decodes a preview small (a JPEG at its DCT scale of 1/8 or near) into the confirmation's
    /// miniature.
    private static let confirmationMaker = ThumbnailMaker(
        request: ThumbnailRequest(size: 8, previewLongSide: 4 * CopyConfirmation.side, miniatureSide: CopyConfirmation.side))

    /// What the catalog stores for a photo that can have no fingerprint: (nearly) one flat tone,
    /// which would resemble every other. A real fingerprint has about half its 64 bits set (each
    /// is a coefficient above the median), so it is never near this one, which is never looked
    /// up nor held: the photo is only marked as done, so that `rethumb --missing` (which picks
    /// the utensils without a fingerprint) does not pick it again and again.
    package static let nonePossible: Int64 = 0

    /// The fingerprint's 64 bits as the catalog stores them; ``nonePossible`` when the photo is
    /// (nearly) one flat tone; nil when the decode made no miniature.
    package static func of(_ thumbnail: Thumbnail) -> Int64? {
        guard let miniature = thumbnail.miniature else { return nil }
        do {
            return Int64(bitPattern: try hash.fingerprint(of: miniature.pixels).bits)
        } catch .featureless {
            return nonePossible
        } catch {
            return nil
        }
    }

    /// Whether two stored fingerprints are within ``Fingerprint/copyThreshold`` of each other
    /// (what the catalog's look-up finds, before the finer confirmation).
    package static func areNear(_ one: Int64, _ other: Int64) -> Bool {
        Fingerprint(bits: UInt64(bitPattern: one)).distance(to: Fingerprint(bits: UInt64(bitPattern: other))) <= Fingerprint.copyThreshold
    }

    /// The ``CopyConfirmation/side``-edge grey miniature of a preview (its JPEG, as stored);
    /// nil when it cannot be decoded. Both sides of a confirmation are made this way, the new
    /// photo's from its preview just made and the utensil's from its stored one, so that they
    /// went through the same steps.
    package static func confirmationMiniature(ofPreview jpeg: [UInt8]) -> [UInt8]? {
        let made = jpeg.withUnsafeBytes { bytes in try? confirmationMaker.makeThumbnail(from: bytes) }
        return made?.miniature?.pixels
    }
}
