import Foundation
import Testing
@testable import UtensilCodec

/// An 8-bit 4:2:0 HEIC large enough is made from its planes at half resolution, as a 4:2:0
/// JPEG is, instead of from libheif's RGB: the same picture within rounding. One coded
/// otherwise than JFIF codes a JPEG (BT.709, a limited range) keeps libheif's own conversion.
/// The photographs are made at test time from a MATE wallpaper, by `heif-enc` through
/// `Tests/Fixtures/phone_photos.py` (which adds the colour profiles heif-enc does not write).
@Suite("HEIC from its planes")
struct HEIFPlanesTests {
    static let fixtures: Result<[String: [UInt8]], any Error> = Result {
        try FixtureTool.generate(#"""
import phone_photos as heif
from PIL import Image
photo = Image.open('/usr/share/backgrounds/mate/nature/Garden.jpg').convert('RGB')
shown = photo.resize((850, 640))
heif.write_heic('plain.heic', shown)
heif.write_heic('bt601.heic', shown, nclx=(1, 13, 6, True))
heif.write_heic('bt709.heic', shown, nclx=(1, 13, 1, True))
heif.write_heic('limited.heic', shown, nclx=(1, 13, 6, False))
heif.write_heic('odd-grid.heic', photo.resize((853, 641)), grid=(2, 2))
heif.write_heic_displayed('turned.heic', shown, 1)  # stored sideways, as a phone's portrait photo
heif.write_heic('cropped.heic', shown, clap=(802, 602))
heif.write_heic('small.heic', photo.resize((600, 450)))
"""#)
    }

    /// The preview's long side and the thumbnail's edge here, a phone's photo's scaled down to
    /// the test's: an 850 px photo's half resolution covers the preview and twice the thumbnail.
    static let previewSide = 400
    static let thumbnailSize = 120

    static func decode(_ name: String, planes: Bool) throws -> DecodedSquare {
        let bytes = try #require(try fixtures.get()[name], "fixture \(name) was not generated")
        var decoder = HEIFDecoder(size: thumbnailSize, maxPixels: 50_000_000, format: .heic, previewSide: previewSide)
        decoder.readsPlanes = planes
        return try bytes.withUnsafeBytes { raw in try decoder.decode(raw) }
    }

    /// Peak signal-to-noise ratio of two RGB8 images of the same size, in dB (infinite when equal).
    static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        precondition(a.count == b.count && !a.isEmpty)
        let squared = zip(a, b).reduce(0.0) { sum, pair in
            let difference = Double(pair.0) - Double(pair.1)
            return sum + difference * difference
        }
        return squared == 0 ? .infinity : 10 * log10(255 * 255 / (squared / Double(a.count)))
    }

    @Test("Made from the planes: the thumbnail and the preview are libheif's RGB path's within rounding, not its bits",
          arguments: ["plain.heic", "bt601.heic", "odd-grid.heic", "turned.heic", "cropped.heic"])
    func fromPlanes(name: String) throws {
        let planar = try Self.decode(name, planes: true), rgb = try Self.decode(name, planes: false)
        #expect((planar.storedWidth, planar.storedHeight) == (rgb.storedWidth, rgb.storedHeight))
        // As displayed: libheif turns (irot) and crops (clap) the planes as it does the RGB.
        let shown = name == "cropped.heic" ? (802, 602) : name == "odd-grid.heic" ? (853, 641) : (850, 640)
        #expect((planar.storedWidth, planar.storedHeight) == shown)
        let planarPreview = try #require(planar.preview), rgbPreview = try #require(rgb.preview)
        #expect((planarPreview.width, planarPreview.height) == (rgbPreview.width, rgbPreview.height))
        #expect(max(planarPreview.width, planarPreview.height) == Self.previewSide)
        let differs = planar.pixels != rgb.pixels
        #expect(differs, "the planes were read (the RGB path would give the same bits)")
        // The same conversion (BT.601, full range) and the same geometry (an odd side's half
        // resolution still maps the whole photo): only rounding differs.
        let thumbnail = Self.psnr(planar.pixels, rgb.pixels), preview = Self.psnr(planarPreview.pixels, rgbPreview.pixels)
        #expect(thumbnail >= 45 && preview >= 45, "thumbnail \(thumbnail) dB, preview \(preview) dB")
    }

    @Test("Coded otherwise than JFIF, or too small for its half resolution to cover the preview: libheif's RGB",
          arguments: ["bt709.heic", "limited.heic", "small.heic"])
    func fromRGB(name: String) throws {
        let planar = try Self.decode(name, planes: true), rgb = try Self.decode(name, planes: false)
        // Compared as one answer each: a failure then says so without printing every pixel.
        let sameThumbnail = planar.pixels == rgb.pixels, samePreview = planar.preview?.pixels == rgb.preview?.pixels
        #expect(sameThumbnail && samePreview, "\(name): made as libheif's RGB path makes it, bit for bit")
    }
}
