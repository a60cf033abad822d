import Testing
@testable import UtensilCodec

@Suite("Sniffing formats from magic bytes")
struct FormatSnifferTests {
    static let samples: [(String, [UInt8], SniffedFormat)] = [
        ("JPEG", [0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10], .jpeg),
        ("PNG", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13], .png),
        ("GIF87a", Array("GIF87a".utf8) + [1, 0, 1, 0], .gif),
        ("GIF89a", Array("GIF89a".utf8) + [1, 0, 1, 0], .gif),
        ("WebP", Array("RIFF".utf8) + [0x24, 0, 0, 0] + Array("WEBPVP8 ".utf8), .webp),
        ("HEIC", ftyp(major: "heic", compatible: ["mif1", "heic"]), .heic),
        ("HEIF mif1 with heix", ftyp(major: "mif1", compatible: ["heix"]), .heic),
        ("AVIF", ftyp(major: "avif", compatible: ["mif1", "miaf"]), .avif),
        ("AVIF behind mif1", ftyp(major: "mif1", compatible: ["miaf", "avif"]), .avif),
        ("MP4 is no image", ftyp(major: "isom", compatible: ["mp41"]), .unknown),
        ("TIFF little-endian", [0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0], .tiff),
        ("TIFF big-endian", [0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8], .tiff),
        ("BMP", bmp(), .bmp),
        ("JPEG XL codestream", [0xFF, 0x0A, 0xFA, 0x12], .jpegXL),
        ("JPEG XL container", [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A], .jpegXL),
        ("text", Array("hello, world".utf8), .unknown),
        ("two JPEG bytes", [0xFF, 0xD8], .unknown),
        ("PNG signature cut short", [0x89, 0x50, 0x4E, 0x47], .unknown),
        ("BM alone", Array("BM".utf8), .unknown),
        ("empty", [], .unknown),
    ]

    static func ftyp(major: String, compatible: [String]) -> [UInt8] {
        let size = 16 + 4 * compatible.count
        return [0, 0, 0, UInt8(size)] + Array("ftyp".utf8) + Array(major.utf8) + [0, 0, 0, 0]
            + compatible.flatMap { Array($0.utf8) } + [0, 0, 0, 8] + Array("meta".utf8)
    }

    static func bmp() -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 54)
        bytes[0] = 0x42; bytes[1] = 0x4D; bytes[14] = 40
        return bytes
    }

    @Test("Known magic bytes", arguments: samples.indices)
    func sniffs(_ index: Int) {
        let (name, bytes, expected) = Self.samples[index]
        let sniffed = bytes.withUnsafeBytes { ThumbnailMaker.sniff($0) }
        #expect(sniffed == expected, "\(name)")
    }

    @Test("Recognised formats other than JPEG, PNG, HEIC, AVIF and WebP are unsupported, naming the format")
    func otherFormatsAreUnsupported() {
        for (name, bytes, format) in Self.samples where ![.jpeg, .png, .heic, .avif, .webp, .unknown].contains(format) {
            let error = codecError { () throws(ImageCodecError) in try thumbnail(bytes) }
            guard case .unsupported(let reported, _) = error else {
                Issue.record("\(name): expected .unsupported, got \(String(describing: error))")
                continue
            }
            #expect(reported == format.displayName)
        }
    }

    @Test("Empty input is an unrecognised format")
    func emptyInput() {
        #expect(codecError { () throws(ImageCodecError) in try thumbnail([]) } == .unrecognizedFormat)
        let error = codecError { () throws(ImageCodecError) in
            try ThumbnailMaker(request: ThumbnailRequest()).makeThumbnail(from: UnsafeRawBufferPointer(start: nil, count: 0))
        }
        #expect(error == .unrecognizedFormat)
    }

    @Test("Random bytes are an unrecognised format")
    func randomBytes() {
        var generator = SeededGenerator(seed: 42)
        for length in [1, 3, 8, 100, 4096] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(bytes.withUnsafeBytes { ThumbnailMaker.sniff($0) } == .unknown)
            #expect(codecError { () throws(ImageCodecError) in try thumbnail(bytes) } == .unrecognizedFormat)
        }
    }
}
