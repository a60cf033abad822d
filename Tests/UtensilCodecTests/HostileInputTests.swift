import Testing
@testable import UtensilCodec

@Suite("Hostile input: truncation, bit flips, header bombs, scan bombs")
struct HostileInputTests {
    static let fixtures: Result<[String: [UInt8]], any Error> = Result {
        try FixtureTool.generate(#"""
import random
random.seed(1)
noise = Image.frombytes('RGB', (48, 40), bytes(random.randrange(256) for _ in range(48 * 40 * 3)))
noisy = quadrants(96, 80)
noisy.paste(noise, (24, 20))
save_oriented(noisy, 'small.jpg', 6, quality=90)
noisy.save('small-progressive.jpg', quality=90, progressive=True)
quadrants(96, 80, colors=[(0, 0, 0, 0), (30, 200, 40, 128), (30, 60, 220, 255), (1, 2, 3, 4)], mode='RGBA').save('small.png')
noisy.save('small-rgb.png')
write_png('small-interlaced.png', 40, 30, 2, 8, lambda x, y: ((x * 7) % 256, (y * 9) % 256, (x * y) % 256), interlace=True)
Image.new('L', (8, 8), 128).save('grey8x8.jpg')
import struct, zlib
def chunk(kind, data):
    return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data))
rgb = open('small-rgb.png', 'rb').read()
bomb = chunk(b'zTXt', b'Comment\x00\x00' + zlib.compress(bytes(80 << 20), 9))
open('ztxt-bomb.png', 'wb').write(rgb[:33] + bomb + rgb[33:])
"""#)
    }

    static func fixture(_ name: String) throws -> [UInt8] {
        try #require(try fixtures.get()[name], "fixture \(name)")
    }

    /// Offsets to cut at: every one through the headers, then a stride through the data.
    static func cutOffsets(_ count: Int, headerBytes: Int = 700, stride: Int = 13) -> [Int] {
        Array(3..<min(headerBytes, count)) + Swift.stride(from: headerBytes, to: count, by: stride).map { $0 }
    }

    @Test("A JPEG cut short anywhere is corrupt", arguments: ["small.jpg", "small-progressive.jpg"])
    func truncatedJPEG(name: String) throws {
        let bytes = try Self.fixture(name)
        for length in Self.cutOffsets(bytes.count) {
            let error = codecError { () throws(ImageCodecError) in try thumbnail(Array(bytes[..<length])) }
            #expect(error?.isCorrupt == true, "\(name) cut at \(length) of \(bytes.count): \(String(describing: error))")
        }
        #expect(codecError { () throws(ImageCodecError) in try thumbnail(bytes) } == nil)
    }

    @Test("A PNG cut short anywhere is corrupt", arguments: ["small.png", "small-rgb.png", "small-interlaced.png"])
    func truncatedPNG(name: String) throws {
        let bytes = try Self.fixture(name)
        for length in Self.cutOffsets(bytes.count, headerBytes: 100, stride: 7) where length >= 8 {
            let error = codecError { () throws(ImageCodecError) in try thumbnail(Array(bytes[..<length])) }
            #expect(error?.isCorrupt == true, "\(name) cut at \(length) of \(bytes.count): \(String(describing: error))")
        }
    }

    @Test("Flipped bits never crash: a thumbnail or a typed error",
          arguments: ["small.jpg", "small-progressive.jpg", "small.png", "small-interlaced.png"])
    func bitFlips(name: String) throws {
        let original = try Self.fixture(name)
        var generator = SeededGenerator(seed: UInt64(original.count))
        for round in 0..<150 {
            var bytes = original
            for _ in 0..<(1 + round % 4) {
                let index = Int.random(in: 8..<bytes.count, using: &generator)
                bytes[index] ^= 1 << UInt8.random(in: 0..<8, using: &generator)
            }
            do {
                let made = try thumbnail(bytes)
                #expect(made.jpeg.count > 100)
            } catch {
                switch error {
                case .corrupt, .unsupported, .tooManyPixels, .tooMuchMetadata: break  // a flipped SOF can name 12-bit precision
                case .unrecognizedFormat: Issue.record("\(name) round \(round): magic bytes were not touched")
                }
            }
        }
    }

    /// A PNG of only a signature, an IHDR and an IEND: a 30000×30000 "header bomb".
    static func pngHeaderBomb(width: UInt32, height: UInt32) -> [UInt8] {
        func be32(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            return be32(UInt32(data.count)) + body + be32(CRC32.checksum(body))
        }
        let ihdr = be32(width) + be32(height) + [8, 6, 0, 0, 0]
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", ihdr)
            + chunk("IDAT", [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]) + chunk("IEND", [])
    }

    @Test("A 30000×30000 PNG header is refused from the header")
    func pngBomb() {
        let bomb = Self.pngHeaderBomb(width: 30000, height: 30000)
        #expect(codecError { () throws(ImageCodecError) in try thumbnail(bomb) }
            == .tooManyPixels(width: 30000, height: 30000, limit: 100_000_000))
        // Allowed by a huge limit, it is decoded row by row and ends as corrupt, not out of memory.
        let error = codecError { () throws(ImageCodecError) in try thumbnail(bomb, maxPixels: 1_000_000_000) }
        #expect(error?.isCorrupt == true, "\(String(describing: error))")
        // Dimensions beyond libspng's limits are refused too.
        let huge = Self.pngHeaderBomb(width: 0x7FFF_FFFF, height: 2)
        #expect(codecError { () throws(ImageCodecError) in try thumbnail(huge) }
            == .tooManyPixels(width: 0x7FFF_FFFF, height: 2, limit: 100_000_000))
    }

    @Test("A JPEG header announcing 65500×65500 is refused before decoding")
    func jpegBomb() throws {
        var bytes = try Self.fixture("grey8x8.jpg")
        #expect(bytes.count < 1000)
        let sof = try #require((2..<bytes.count - 1).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
        bytes.replaceSubrange((sof + 5)..<(sof + 9), with: [0xFF, 0xDC, 0xFF, 0xDC])
        #expect(codecError { () throws(ImageCodecError) in try thumbnail(bytes) }
            == .tooManyPixels(width: 65500, height: 65500, limit: 100_000_000))
        #expect(codecError { () throws(ImageCodecError) in try thumbnail(bytes, maxPixels: 63) }
            == .tooManyPixels(width: 65500, height: 65500, limit: 63))
        let eightByEight = try Self.fixture("grey8x8.jpg")
        #expect(codecError { () throws(ImageCodecError) in try thumbnail(eightByEight, maxPixels: 63) }
            == .tooManyPixels(width: 8, height: 8, limit: 63))
    }

    @Test("A small progressive JPEG announcing 10000×10000 is refused before libjpeg allocates for it")
    func progressiveBomb() throws {
        var bytes = try Self.fixture("small-progressive.jpg")
        let sof = try #require((2..<bytes.count - 1).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC2 })
        bytes.replaceSubrange((sof + 5)..<(sof + 9), with: [0x27, 0x10, 0x27, 0x10])
        let error = codecError { () throws(ImageCodecError) in try thumbnail(bytes) }
        guard case .corrupt(let detail) = error else {
            Issue.record("expected .corrupt, got \(String(describing: error))")
            return
        }
        #expect(detail.contains("far too short"), "\(detail)")
    }

    @Test("A progressive JPEG with thousands of scans is refused (TJFLAG_LIMITSCANS)")
    func scanBomb() throws {
        let bytes = try Self.fixture("small-progressive.jpg")
        // Repeat the last scan (its SOS header and entropy-coded data) 1000 times.
        let lastSOS = try #require((2..<bytes.count - 1).last { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA })
        let scan = Array(bytes[lastSOS..<(bytes.count - 2)])
        let bomb = Array(bytes[..<lastSOS]) + Array([[UInt8]](repeating: scan, count: 1000).joined()) + [0xFF, 0xD9]
        let error = codecError { () throws(ImageCodecError) in try thumbnail(bomb) }
        guard case .corrupt(let detail) = error else {
            Issue.record("expected .corrupt, got \(String(describing: error))")
            return
        }
        #expect(detail.contains("500 scans"), "\(detail)")
    }

    @Test("A PNG whose zTXt inflates to 80 MB is refused as too much metadata, not decoded")
    func metadataBomb() throws {
        let bytes = try Self.fixture("ztxt-bomb.png")
        #expect(bytes.count < 200_000)
        #expect(codecError { () throws(ImageCodecError) in try thumbnail(bytes) }
            == .tooMuchMetadata(chunkLimit: 16 << 20, totalLimit: 64 << 20))
    }

    /// Found by the fuzzer: stray bytes before the frame header (which libjpeg skips with a
    /// warning) hid the progressive frame from the size check; 747 bytes then cost 5 s and
    /// 300 MB of decoding.
    @Test("A progressive bomb behind stray bytes is still refused before decoding")
    func progressiveBombBehindStrayBytes() throws {
        var bytes = try Self.fixture("small-progressive.jpg")
        let sof = try #require((2..<bytes.count - 1).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC2 })
        bytes.replaceSubrange((sof + 5)..<(sof + 9), with: [0x27, 0x10, 0x27, 0x10])
        bytes.insert(contentsOf: [0x14, 0x14, 0x14], at: sof)
        let error = codecError { () throws(ImageCodecError) in try thumbnail(bytes) }
        guard case .corrupt(let detail) = error else {
            Issue.record("expected .corrupt, got \(String(describing: error))")
            return
        }
        #expect(detail.contains("far too short"), "\(detail)")
    }

    /// `small-progressive.jpg` claiming 10000×10000, padded with 130 KB of comment segments
    /// right after SOI (so that the file is long enough to pass a size check), with its last
    /// scan repeated `copies` times.
    static func paddedProgressiveBomb(copies: Int) throws -> [UInt8] {
        var bytes = try fixture("small-progressive.jpg")
        let sof = try #require((2..<bytes.count - 1).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC2 })
        bytes.replaceSubrange((sof + 5)..<(sof + 9), with: [0x27, 0x10, 0x27, 0x10])
        let lastSOS = try #require((2..<bytes.count - 1).last { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA })
        let scan = Array(bytes[lastSOS..<(bytes.count - 2)])
        let comment: [UInt8] = [0xFF, 0xFE, 0xFD, 0xEA] + [UInt8](repeating: 0, count: 65000)
        return Array(bytes[..<2]) + comment + comment + Array(bytes[2..<lastSOS])
            + Array([[UInt8]](repeating: scan, count: copies).joined()) + [0xFF, 0xD9]
    }

    @Test("A padded progressive JPEG with few scan bytes for 10000×10000 is refused before decoding")
    func paddedProgressiveBomb() throws {
        let bytes = try Self.paddedProgressiveBomb(copies: 1)
        #expect(bytes.count > 130_000)
        let error = codecError { () throws(ImageCodecError) in try thumbnail(bytes) }
        guard case .corrupt(let detail) = error else {
            Issue.record("expected .corrupt, got \(String(describing: error))")
            return
        }
        #expect(detail.contains("far too short"), "\(detail)")
    }

    /// Found by the hostile-files table: 136 KB with 499 scans over 10000×10000 pixels passed
    /// every check and then kept libjpeg busy for 40 s and 300 MB until its 500-scan limit.
    @Test("Hundreds of scans over 10000×10000 pixels are refused before decoding (passes × pixels)")
    func manyScansOverManyPixels() throws {
        let bytes = try Self.paddedProgressiveBomb(copies: 499)
        let error = codecError { () throws(ImageCodecError) in try thumbnail(bytes) }
        guard case .corrupt(let detail) = error else {
            Issue.record("expected .corrupt, got \(String(describing: error))")
            return
        }
        #expect(detail.contains("scans over 10000×10000 pixels, more decoding work"), "\(detail)")
        // An ordinary progressive JPEG (about ten scans) still decodes.
        let normal = try Self.fixture("small-progressive.jpg")
        #expect(try thumbnail(normal).jpeg.count > 100)
    }
}

/// CRC-32 (ISO-HDLC, as PNG uses), for synthesising chunks.
enum CRC32 {
    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
