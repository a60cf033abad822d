import Foundation
import Testing
@testable import UtensilCodec

/// On real photographs, our thumbnail must be about as close as `vipsthumbnail`'s to a careful
/// reference (Pillow: full-resolution decode, EXIF transpose, Lanczos `ImageOps.fit`).
/// HEIC, AVIF and WebP copies (Debian's libvips reads them through the same libheif and libwebp)
/// are compared against the reference made from the PNG their encoder was given, since Pillow
/// reads no HEIF: the coding loss is in both thumbnails alike.
///
/// The photos come from Debian's `mate-backgrounds` package (`/usr/share/backgrounds/mate/nature`);
/// `make test` installs it. Missing photos or tools fail the test: it never skips.
@Suite("Quality on real photographs, against vipsthumbnail")
struct PhotoQualityTests {
    static let photoFolder = "/usr/share/backgrounds/mate/nature"
    /// The photographs of mate-backgrounds 1.26 (2560×1600 at most, baseline and progressive).
    static let photos = [
        "Aqua.jpg", "Blinds.jpg", "Dune.jpg", "FreshFlower.jpg", "Garden.jpg", "GreenMeadow.jpg",
        "LadyBird.jpg", "RainDrops.jpg", "Storm.jpg", "TwoWings.jpg", "Wood.jpg", "YellowFlower.jpg",
    ]
    /// How far below vipsthumbnail's PSNR we may be.
    static let allowedShortfall = 1.5

    static let compareScript = #"""
import os, subprocess, numpy as np
def psnr(a, b):
    a = np.asarray(a, dtype=np.float64); b = np.asarray(b, dtype=np.float64)
    return 10 * np.log10(255.0 ** 2 / max(((a - b) ** 2).mean(), 1e-12))
for line in open('pairs.txt').read().splitlines():
    name, source, ours, reference = line.split('\t')
    ref = ImageOps.fit(ImageOps.exif_transpose(Image.open(reference)).convert('RGB'), (180, 180), Image.LANCZOS, centering=(0.5, 0.5))
    out = os.path.abspath('vips-%s.jpg' % name)  # a relative -o would land beside the input
    subprocess.run(['/usr/bin/vipsthumbnail', source, '--size', '180x180', '--smartcrop', 'centre',
                    '-o', out + '[Q=85]'], check=True)
    vips = Image.open(out).convert('RGB')
    mine = Image.open(ours)
    assert mine.size == (180, 180) and vips.size == (180, 180), (mine.size, vips.size)
    print('%s\t%.3f\t%.3f' % (name, psnr(ref, vips), psnr(ref, mine.convert('RGB'))))
"""#

    /// Photos made from the packaged ones: EXIF-rotated copies, a PNG, and HEIC, AVIF and WebP
    /// copies (the PNG each encoder read is `<name>.ref.png`, the reference for its thumbnail).
    static let derivedScript = #"""
import subprocess
import phone_photos
def tool(*command):
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
def coded(name, photo, command):
    Image.open(PHOTOS + '/' + photo).convert('RGB').save(name + '.ref.png')
    tool(*command, name + '.ref.png', '-o', name)
heif = ['/usr/bin/heif-enc', '-q', '90', '-p', 'preset=ultrafast']
coded('Aqua.heic', 'Aqua.jpg', heif)
coded('Dune.heic', 'Dune.jpg', heif)
coded('RainDrops.heic', 'RainDrops.jpg', heif)
coded('Wood.avif', 'Wood.jpg', ['/usr/bin/heif-enc', '-q', '90', '--avif', '-p', 'speed=9'])
coded('Garden.webp', 'Garden.jpg', ['/usr/bin/cwebp', '-q', '90'])
coded('TwoWings.webp', 'TwoWings.jpg', ['/usr/bin/cwebp', '-q', '90'])
coded('GreenMeadow-lossless.webp', 'GreenMeadow.jpg', ['/usr/bin/cwebp', '-lossless', '-z', '0'])
turned = Image.open(PHOTOS + '/FreshFlower.jpg').convert('RGB')
turned = turned.crop((0, 0, turned.width // 2 * 2, turned.height // 2 * 2))
turned.save('FreshFlower-irot.heic.ref.png')
phone_photos.write_heic_displayed('FreshFlower-irot.heic', turned, 1, exif_orientation=8, quality=90)
storm = Image.open(PHOTOS + '/Storm.jpg').convert('RGB')
save_oriented(storm, 'oriented6.jpg', 6, quality=95)
save_oriented(Image.open(PHOTOS + '/LadyBird.jpg').convert('RGB'), 'oriented3.jpg', 3, quality=95)
save_oriented(Image.open(PHOTOS + '/Garden.jpg').convert('RGB'), 'oriented8.jpg', 8, quality=95)
Image.open(PHOTOS + '/Blinds.jpg').convert('RGB').save('photo.png', compress_level=1)
Image.open(PHOTOS + '/YellowFlower.jpg').convert('RGB').save('photo-progressive.jpg', quality=92, progressive=True)
"""#

    @Test("Within 1.5 dB of vipsthumbnail on every photo, EXIF-rotated, PNG, HEIC, AVIF and WebP copies included")
    func quality() throws {
        let missing = Self.photos.filter { !FileManager.default.fileExists(atPath: Self.photoFolder + "/" + $0) }
        try #require(
            missing.isEmpty,
            "real photographs \(missing) missing from \(Self.photoFolder): install the Debian package mate-backgrounds")
        try #require(
            FileManager.default.isExecutableFile(atPath: FixtureTool.vipsthumbnail),
            "\(FixtureTool.vipsthumbnail) missing: install the Debian package libvips-tools")

        try FixtureTool.withTemporaryFolder { folder in
            try FixtureTool.runPython("PHOTOS = '\(Self.photoFolder)'\n" + Self.derivedScript, in: folder)
            var inputs = Self.photos.map {
                (name: ($0 as NSString).deletingPathExtension, path: Self.photoFolder + "/" + $0, reference: Self.photoFolder + "/" + $0)
            }
            let derived = ["oriented6.jpg", "oriented3.jpg", "oriented8.jpg", "photo.png", "photo-progressive.jpg"]
            inputs += derived.map {
                let path = folder.appendingPathComponent($0).path
                return (name: ($0 as NSString).deletingPathExtension, path: path, reference: path)
            }
            let coded = [
                "Aqua.heic", "Dune.heic", "RainDrops.heic", "FreshFlower-irot.heic", "Wood.avif", "Garden.webp",
                "TwoWings.webp", "GreenMeadow-lossless.webp",
            ]
            inputs += coded.map {
                let path = folder.appendingPathComponent($0).path
                return (name: $0, path: path, reference: path + ".ref.png")
            }

            var pairs: [String] = []
            for input in inputs {
                let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: input.path)))
                let made = try thumbnail(bytes)
                if input.name.hasPrefix("oriented") {
                    let orientation = Int(input.name.dropFirst("oriented".count)) ?? 0
                    #expect(made.orientation == orientation, "\(input.name)")
                }
                let ours = folder.appendingPathComponent("ours-\(input.name).jpg")
                try Data(made.jpeg).write(to: ours)
                pairs.append("\(input.name)\t\(input.path)\t\(ours.path)\t\(input.reference)")
            }
            try pairs.joined(separator: "\n").write(
                to: folder.appendingPathComponent("pairs.txt"), atomically: true, encoding: .utf8)

            let table = try FixtureTool.runPython(Self.compareScript, in: folder)
            var rows = 0
            print("photo                        vips dB   ours dB   difference")
            for line in table.split(separator: "\n") {
                let fields = line.split(separator: "\t")
                guard fields.count == 3, let vips = Double(fields[1]), let ours = Double(fields[2]) else {
                    Issue.record("unreadable line from the comparison script: \(line)")
                    continue
                }
                rows += 1
                let name = String(fields[0])
                print(name.padding(toLength: 27, withPad: " ", startingAt: 0), String(format: "%7.2f   %7.2f   %+6.2f", vips, ours, ours - vips))
                #expect(ours >= vips - Self.allowedShortfall, "\(name): ours \(ours) dB, vipsthumbnail \(vips) dB")
                #expect(ours > 25, "\(name): \(ours) dB is not a thumbnail of this photo")
            }
            #expect(rows == inputs.count, "the comparison script reported \(rows) of \(inputs.count) photos")
        }
    }
}
