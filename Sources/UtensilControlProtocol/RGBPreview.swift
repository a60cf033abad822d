import Foundation

/// A tiny uncompressed picture of a thumbnail, so that a client can draw it without a JPEG
/// decoder: `width` × `height` pixels of 3 bytes (red, green, blue), row by row from the top.
public struct RGBPreview: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public let rgb: Data

    /// `nil` unless `rgb` holds exactly `width` × `height` × 3 bytes.
    public init?(width: Int, height: Int, rgb: Data) {
        guard width > 0, height > 0, width <= 4096, height <= 4096, rgb.count == width * height * 3
        else { return nil }
        self.width = width
        self.height = height
        self.rgb = rgb
    }

    /// The pixel at column `x`, row `y` (both from 0).
    public func pixel(x: Int, y: Int) -> (red: UInt8, green: UInt8, blue: UInt8) {
        let offset = rgb.startIndex + (y * width + x) * 3
        return (rgb[offset], rgb[offset + 1], rgb[offset + 2])
    }
}
