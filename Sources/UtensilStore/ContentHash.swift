import Crypto
import Foundation

/// The content hash of a photo, as stored in a utensil's `sha256`.
package enum ContentHash {
    /// Lower-case hexadecimal SHA-256 of the bytes.
    package static func sha256(of bytes: some DataProtocol) -> String {
        SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }
}
