/// The gallery's app icon, drawn at start as a PNG of any square size (the web manifest names
/// 192 and 512 px): a white plate with a fork and a knife on the gallery's green. Four colours,
/// two bits a pixel, stored without compression (deflate's stored blocks), so no library is
/// needed: 66 KB at 512 px.
enum AppIcon {
    static let sizes = [192, 512]

    /// The icon of `size` × `size` pixels, made once per size.
    static let png: [Int: [UInt8]] = Dictionary(uniqueKeysWithValues: sizes.map { ($0, render(size: $0)) })

    /// Palette: the gallery's green, white, a light grey rim, a dark grey for the cutlery.
    private static let palette: [UInt8] = [0x1E, 0x6F, 0x43, 0xFF, 0xFF, 0xFF, 0xD8, 0xDE, 0xDA, 0x3A, 0x3F, 0x3C]

    /// The colour index of the pixel centred at (`x`, `y`), both 0…1 across the icon.
    private static func colour(_ x: Double, _ y: Double) -> UInt8 {
        let dx = x - 0.5
        let dy = y - 0.5
        let radius = (dx * dx + dy * dy).squareRoot()
        // Fork (left) and knife (right): two upright bars with rounded ends, over the plate.
        let upright = y > 0.26 && y < 0.74
        let handle = upright && (abs(x - 0.38) < 0.025 || abs(x - 0.62) < 0.025)
        let tines = y > 0.26 && y < 0.40 && [0.33, 0.38, 0.43].contains { abs(x - $0) < 0.012 }
        let tineBar = abs(y - 0.40) < 0.012 && x > 0.33 && x < 0.43
        let blade = x > 0.62 && x < 0.655 && y > 0.26 && y < 0.48
        if handle || tines || tineBar || blade { return 3 }
        if radius < 0.30 { return 1 }
        if radius < 0.34 { return 2 }
        return 0
    }

    static func render(size: Int) -> [UInt8] {
        let rowBytes = (size * 2 + 7) / 8
        var raw: [UInt8] = []
        raw.reserveCapacity((rowBytes + 1) * size)
        for row in 0..<size {
            raw.append(0)  // filter: none
            var byte: UInt8 = 0
            for column in 0..<size {
                let index = colour((Double(column) + 0.5) / Double(size), (Double(row) + 0.5) / Double(size))
                byte |= index << UInt8(6 - 2 * (column % 4))
                if column % 4 == 3 || column == size - 1 {
                    raw.append(byte)
                    byte = 0
                }
            }
        }
        var header: [UInt8] = []
        header += bigEndian(UInt32(size)) + bigEndian(UInt32(size))
        header += [2, 3, 0, 0, 0]  // depth 2, palette, deflate, adaptive filters, no interlace
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + chunk("IHDR", header) + chunk("PLTE", palette) + chunk("IDAT", zlibStored(raw)) + chunk("IEND", [])
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + typed + bigEndian(crc32(typed))
    }

    /// A zlib stream of stored (uncompressed) deflate blocks of at most 65,535 bytes.
    private static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var start = 0
        repeat {
            let length = min(65_535, data.count - start)
            let last: UInt8 = start + length == data.count ? 1 : 0
            out += [last, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            out += data[start..<(start + length)]
            start += length
        } while start < data.count
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return out + bigEndian(b << 16 | a)
    }

    private static let crcTable: [UInt32] = (0..<256).map { (n: UInt32) in
        var c = n
        for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in bytes { c = crcTable[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }
}
