import Testing
@testable import UtensilCodec

@Suite("EXIF orientation parser and transforms")
struct ExifOrientationTests {
    /// "Exif\0\0" + a TIFF structure whose IFD0 holds `entries` (tag, type, value).
    static func exif(bigEndian: Bool, entries: [(UInt16, UInt16, UInt32)], prefix: Bool = true) -> [UInt8] {
        func u16(_ value: UInt16) -> [UInt8] {
            bigEndian ? [UInt8(value >> 8), UInt8(value & 0xFF)] : [UInt8(value & 0xFF), UInt8(value >> 8)]
        }
        func u32(_ value: UInt32) -> [UInt8] {
            bigEndian ? u16(UInt16(value >> 16)) + u16(UInt16(value & 0xFFFF)) : u16(UInt16(value & 0xFFFF)) + u16(UInt16(value >> 16))
        }
        var bytes: [UInt8] = prefix ? Array("Exif".utf8) + [0, 0] : []
        bytes += (bigEndian ? Array("MM".utf8) : Array("II".utf8)) + u16(42) + u32(8) + u16(UInt16(entries.count))
        for (tag, type, value) in entries {
            let field = type == 3 ? u16(UInt16(value)) + [0, 0] : u32(value)
            bytes += u16(tag) + u16(type) + u32(1) + field
        }
        return bytes + u32(0)
    }

    static func read(_ bytes: [UInt8]) -> Int? {
        bytes.withUnsafeBytes { ExifOrientationReader.orientation(in: $0) }
    }

    @Test("Both byte orders, all eight values", arguments: [false, true])
    func byteOrders(bigEndian: Bool) {
        for value in 1...8 {
            let bytes = Self.exif(bigEndian: bigEndian, entries: [(0x010F, 2, 0), (0x0112, 3, UInt32(value))])
            #expect(Self.read(bytes) == value)
        }
    }

    @Test("A bare TIFF structure (PNG eXIf) and a LONG-typed tag")
    func variants() {
        #expect(Self.read(Self.exif(bigEndian: false, entries: [(0x0112, 3, 6)], prefix: false)) == 6)
        #expect(Self.read(Self.exif(bigEndian: true, entries: [(0x0112, 4, 8)])) == 8)
    }

    @Test("Invalid or missing values give nil")
    func invalid() {
        #expect(Self.read(Self.exif(bigEndian: false, entries: [(0x0112, 3, 0)])) == nil)
        #expect(Self.read(Self.exif(bigEndian: false, entries: [(0x0112, 3, 9)])) == nil)
        #expect(Self.read(Self.exif(bigEndian: false, entries: [(0x0110, 3, 6)])) == nil)
        #expect(Self.read(Self.exif(bigEndian: false, entries: [(0x0112, 2, 6)])) == nil)
        #expect(Self.read([]) == nil)
        #expect(Self.read(Array("Exif".utf8) + [0, 0]) == nil)
        #expect(Self.read(Array("Exif".utf8) + [0, 0] + Array("XX".utf8) + [42, 0, 8, 0, 0, 0]) == nil)
    }

    @Test("Hostile offsets and truncations never read out of bounds")
    func hostile() {
        let valid = Self.exif(bigEndian: true, entries: [(0x0112, 3, 3)])
        for length in 0..<valid.count { _ = Self.read(Array(valid[0..<length])) }
        // IFD0 offset pointing past the end, or far away.
        for offset: [UInt8] in [[0xFF, 0xFF, 0xFF, 0xFF], [0x7F, 0xFF, 0xFF, 0xF0], [0, 0, 0, 200]] {
            var bytes = valid
            bytes.replaceSubrange(10..<14, with: offset)
            #expect(Self.read(bytes) == nil)
        }
        // An entry count far larger than the data.
        var bytes = valid
        bytes[14] = 0xFF; bytes[15] = 0xFF
        _ = Self.read(bytes)
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<2000 {
            var fuzzed = valid
            let index = Int.random(in: 0..<fuzzed.count, using: &generator)
            fuzzed[index] = UInt8.random(in: 0...255, using: &generator)
            if let value = Self.read(fuzzed) { #expect((1...8).contains(value)) }
        }
    }

    /// Applies `orientation` to a 3×3 square whose pixel (x, y) has red = 10·y + x.
    static func transformed(_ orientation: Orientation) -> [[Int]] {
        var pixels: [UInt8] = []
        for y in 0..<3 { for x in 0..<3 { pixels += [UInt8(10 * y + x), 0, 0] } }
        let out = orientation.apply(toSquare: pixels, side: 3)
        return (0..<3).map { y in (0..<3).map { x in Int(out[(y * 3 + x) * 3]) } }
    }

    @Test("The eight transforms stand a stored square upright")
    func transforms() {
        // Rows of the displayed image, in stored coordinates "yx".
        #expect(Self.transformed(.up) == [[0, 1, 2], [10, 11, 12], [20, 21, 22]])
        #expect(Self.transformed(.mirrored) == [[2, 1, 0], [12, 11, 10], [22, 21, 20]])
        #expect(Self.transformed(.rotated180) == [[22, 21, 20], [12, 11, 10], [2, 1, 0]])
        #expect(Self.transformed(.flippedVertically) == [[20, 21, 22], [10, 11, 12], [0, 1, 2]])
        #expect(Self.transformed(.transposed) == [[0, 10, 20], [1, 11, 21], [2, 12, 22]])
        #expect(Self.transformed(.rotated90Clockwise) == [[20, 10, 0], [21, 11, 1], [22, 12, 2]])
        #expect(Self.transformed(.transverse) == [[22, 12, 2], [21, 11, 1], [20, 10, 0]])
        #expect(Self.transformed(.rotated90CounterClockwise) == [[2, 12, 22], [1, 11, 21], [0, 10, 20]])
        #expect(Orientation(exifValue: nil) == .up)
        #expect(Orientation(exifValue: 0) == .up)
        #expect(Orientation(exifValue: 9) == .up)
    }
}
