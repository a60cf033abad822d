/// Reads an image format from its magic bytes. Pure and bounds-checked: it looks at no
/// more than the first box of an ISO-BMFF file and never trusts a length it cannot see.
enum FormatSniffer {
    static func sniff(_ bytes: UnsafeRawBufferPointer) -> SniffedFormat {
        func starts(with magic: [UInt8], at offset: Int = 0) -> Bool {
            guard bytes.count >= offset + magic.count else { return false }
            for (index, byte) in magic.enumerated() where bytes[offset + index] != byte { return false }
            return true
        }
        if starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts(with: Array("GIF87a".utf8)) || starts(with: Array("GIF89a".utf8)) { return .gif }
        if starts(with: Array("RIFF".utf8)), starts(with: Array("WEBP".utf8), at: 8) { return .webp }
        if starts(with: [0xFF, 0x0A])
            || starts(with: [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) {
            return .jpegXL
        }
        if starts(with: [0x49, 0x49, 0x2A, 0x00]) || starts(with: [0x4D, 0x4D, 0x00, 0x2A])
            || starts(with: [0x49, 0x49, 0x2B, 0x00]) || starts(with: [0x4D, 0x4D, 0x00, 0x2B]) {
            return .tiff
        }
        if starts(with: Array("ftyp".utf8), at: 4) { return isoBrand(bytes) }
        if isBMP(bytes) { return .bmp }
        return .unknown
    }

    private static let avifBrands: Set<String> = ["avif", "avis"]
    private static let heicBrands: Set<String> = [
        "heic", "heix", "heim", "heis", "hevc", "hevx", "hevm", "hevs", "mif1", "mif2", "msf1",
    ]

    /// HEIC or AVIF from the `ftyp` box: the major brand, then the compatible brands.
    private static func isoBrand(_ bytes: UnsafeRawBufferPointer) -> SniffedFormat {
        let declared = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        let boxEnd = min(declared >= 16 ? declared : 16, bytes.count)
        func brand(at offset: Int) -> String? {
            guard offset + 4 <= boxEnd else { return nil }
            return String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
        }
        var brands: [String] = []
        if let major = brand(at: 8) { brands.append(major) }
        var offset = 16
        while let compatible = brand(at: offset), brands.count < 64 {
            brands.append(compatible)
            offset += 4
        }
        if let major = brands.first, avifBrands.contains(major) { return .avif }
        if let major = brands.first, heicBrands.contains(major), major != "mif1", major != "msf1" { return .heic }
        if brands.contains(where: avifBrands.contains) { return .avif }
        if brands.contains(where: heicBrands.contains) { return .heic }
        return .unknown
    }

    /// "BM" alone is too weak: also require a known DIB header size.
    private static func isBMP(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count >= 26, bytes[0] == 0x42, bytes[1] == 0x4D else { return false }
        let dibSize = Int(bytes[14]) | Int(bytes[15]) << 8 | Int(bytes[16]) << 16 | Int(bytes[17]) << 24
        return [12, 16, 40, 52, 56, 64, 108, 124].contains(dibSize)
    }
}
