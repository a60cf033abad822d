import Foundation

/// A utensil id taken from a URL: exactly Swift's `uuidString` form (or its lower-case
/// spelling), so that nothing else — `..`, slashes, NUL, percent tricks — ever reaches a path.
struct UtensilID: Sendable, Equatable {
    /// The `uuidString` form, as file names and the catalog use it.
    let text: String

    init?(_ candidate: some StringProtocol) {
        guard candidate.utf8.count == 36, candidate.utf8.allSatisfy({ Self.allowed($0) }),
              let uuid = UUID(uuidString: String(candidate)), uuid.uuidString == candidate.uppercased()
        else { return nil }
        text = uuid.uuidString
    }

    /// `"<id>.<extension>"`, the last segment of `/thumbnails/…` and `/originals/…`: the id and
    /// the extension in lower case (letters and digits only, at most 8).
    static func split(fileName: String) -> (id: UtensilID, fileExtension: String)? {
        guard let dot = fileName.firstIndex(of: "."), let id = UtensilID(fileName[..<dot]) else { return nil }
        let fileExtension = fileName[fileName.index(after: dot)...]
        guard (1...8).contains(fileExtension.utf8.count),
              fileExtension.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x7A).contains($0) })
        else { return nil }
        return (id, String(fileExtension))
    }

    private static func allowed(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "-") || (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }
}
