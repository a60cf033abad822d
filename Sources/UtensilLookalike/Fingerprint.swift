/// A perceptual fingerprint of a photo: 64 bits that change little when the same picture is
/// re-encoded, resized, converted or slightly cropped, and are about half different for
/// another picture. Two fingerprints are compared by their ``distance(to:)``.
public struct Fingerprint: Hashable, Sendable, CustomStringConvertible {
    /// The 64 bits; bit `i` is set when DCT coefficient `i` (row-major over the 8 × 8 lowest
    /// frequencies, the constant term left out) is above their median.
    public var bits: UInt64

    public init(bits: UInt64) {
        self.bits = bits
    }

    /// The Hamming distance: how many of the 64 bits differ (0…64).
    public func distance(to other: Fingerprint) -> Int {
        (bits ^ other.bits).nonzeroBitCount
    }

    /// Sixteen lowercase hexadecimal digits.
    public var description: String {
        let digits = String(bits, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// Reads the sixteen hexadecimal digits of ``description``; nil for anything else.
    public init?(hex: String) {
        guard hex.utf8.count == 16, let bits = UInt64(hex, radix: 16) else { return nil }
        self.bits = bits
    }

    /// The greatest ``distance(to:)`` at which two fingerprints are taken for copies of one
    /// photo, chosen by measurement (docs/PERFORMANCE.md, "Look-alike fingerprints").
    public static let copyThreshold = 12
}
