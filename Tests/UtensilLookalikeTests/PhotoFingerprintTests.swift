import Foundation
import Testing
import UtensilCodec
import UtensilLookalike

/// Fingerprints of real photographs through the real codec: a changed copy stays within
/// ``Fingerprint/copyThreshold`` of its original, another photograph does not.
///
/// The photos come from Debian's `mate-backgrounds` package; the copies are made by Debian's
/// Python with Pillow. Missing photos or tools fail the test: it never skips.
@Suite("Look-alike fingerprints of real photographs")
struct PhotoFingerprintTests {
    static let photoFolder = "/usr/share/backgrounds/mate/nature"
    static let python = "/usr/bin/python3"
    static let photos = ["Aqua", "Dune", "Garden", "LadyBird", "Storm", "Wood"]

    /// The codec as the store calls it, asking for the miniature too.
    static func fingerprint(_ bytes: [UInt8]) throws -> Fingerprint {
        let maker = ThumbnailMaker(request: ThumbnailRequest(previewLongSide: 1600, miniatureSide: 32))
        let made = try bytes.withUnsafeBytes { raw throws(ImageCodecError) in try maker.makeThumbnail(from: raw) }
        let miniature = try #require(made.miniature)
        #expect(miniature.side == 32 && miniature.pixels.count == 1024)
        return try PerceptualHash(side: 32).fingerprint(of: miniature.pixels)
    }

    /// Runs Pillow on `photo` with `script` (which writes `copy.*` in the current folder) and
    /// returns the copies' bytes, by name.
    static func copies(of photo: String, _ script: String) throws -> [String: [UInt8]] {
        let source = "\(photoFolder)/\(photo).jpg"
        guard FileManager.default.fileExists(atPath: source) else {
            throw PhotoMissing(description: "\(source) missing: install the Debian package mate-backgrounds")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lookalike-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", "from PIL import Image, ImageEnhance\nimage = Image.open(\(String(reflecting: source))).convert('RGB')\n" + script]
        process.currentDirectoryURL = folder
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw PhotoMissing(description: "\(python) with Pillow (python3-pil) could not make the copies")
        }
        var files: [String: [UInt8]] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            files[name] = Array(try Data(contentsOf: folder.appendingPathComponent(name)))
        }
        return files
    }

    struct PhotoMissing: Error, CustomStringConvertible {
        var description: String
    }

    static let changedCopies = """
        w, h = image.size
        image.resize((w * 2 // 5, h * 2 // 5), Image.LANCZOS).save('resized-40.jpg', quality=70)
        image.save('quality-35.jpg', quality=35)
        image.resize((w // 2, h // 2), Image.LANCZOS).save('converted.png')
        image.save('converted.webp', quality=75)
        image.crop((w * 4 // 100, h * 4 // 100, w - w * 4 // 100, h - h * 4 // 100)).save('cropped-4.jpg', quality=85)
        ImageEnhance.Brightness(image).enhance(1.1).save('brighter-10.jpg', quality=85)
        exif = Image.Exif()
        exif[0x0112] = 6
        image.transpose(Image.ROTATE_90).save('rotated-exif-6.jpg', quality=90, exif=exif.tobytes())
        exif[0x0112] = 8
        image.transpose(Image.ROTATE_270).save('rotated-exif-8.jpg', quality=90, exif=exif.tobytes())
        """

    @Test("re-saved, resized, converted, cropped, brightened and EXIF-rotated copies are within the threshold",
          arguments: ["Garden", "Storm"])
    func copiesMatch(photo: String) throws {
        let original = try Self.fingerprint(Array(try Data(contentsOf: URL(fileURLWithPath: "\(Self.photoFolder)/\(photo).jpg"))))
        let copies = try Self.copies(of: photo, Self.changedCopies)
        #expect(copies.count == 8)
        for (name, bytes) in copies.sorted(by: { $0.key < $1.key }) {
            let distance = try Self.fingerprint(bytes).distance(to: original)
            #expect(distance <= Fingerprint.copyThreshold, "\(photo) \(name): distance \(distance)")
        }
    }

    /// For each EXIF orientation, the pixels stored so that the tag stands them upright again
    /// (the inverse of Pillow's `exif_transpose` for that tag).
    static let orientedCopies = """
        inverse = {1: None, 2: Image.FLIP_LEFT_RIGHT, 3: Image.ROTATE_180, 4: Image.FLIP_TOP_BOTTOM,
                   5: Image.TRANSPOSE, 6: Image.ROTATE_90, 7: Image.TRANSVERSE, 8: Image.ROTATE_270}
        image = image.resize((image.width // 2, image.height // 2), Image.LANCZOS)
        for orientation, method in inverse.items():
            exif = Image.Exif()
            exif[0x0112] = orientation
            stored = image if method is None else image.transpose(method)
            stored.save('oriented-%d.jpg' % orientation, quality=92, exif=exif.tobytes())
        """

    @Test("the miniature is the photo as displayed, under each of the eight EXIF orientations")
    func miniatureIsUpright() throws {
        let copies = try Self.copies(of: "LadyBird", Self.orientedCopies)
        let maker = ThumbnailMaker(request: ThumbnailRequest(previewLongSide: 1600, miniatureSide: 32))
        func miniature(_ orientation: Int) throws -> [UInt8] {
            let bytes = try #require(copies["oriented-\(orientation).jpg"])
            let made = try bytes.withUnsafeBytes { raw throws(ImageCodecError) in try maker.makeThumbnail(from: raw) }
            #expect(made.orientation == orientation)
            return try #require(made.miniature).pixels
        }
        let upright = try miniature(1)
        for orientation in 2...8 {
            let pixels = try miniature(orientation)
            let meanDifference = zip(upright, pixels).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) } / upright.count
            #expect(meanDifference <= 2, "orientation \(orientation): mean difference \(meanDifference)")
        }
        // And a photo turned without a tag to stand it up is not upright: the check above can fail.
        let turned = try Self.copies(
            of: "LadyBird", "image.resize((image.width // 2, image.height // 2)).transpose(Image.ROTATE_90).save('t.jpg')")
        let turnedBytes = try #require(turned["t.jpg"])
        let turnedMiniature = try turnedBytes.withUnsafeBytes { raw throws(ImageCodecError) in try maker.makeThumbnail(from: raw) }
        let unturned = try #require(turnedMiniature.miniature).pixels
        #expect(zip(upright, unturned).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) } / upright.count > 10)
    }

    @Test("pixels turned without an EXIF tag to stand them up are another picture")
    func unorientedTurnIsNotACopy() throws {
        let original = try Self.fingerprint(Array(try Data(contentsOf: URL(fileURLWithPath: "\(Self.photoFolder)/Garden.jpg"))))
        let copies = try Self.copies(of: "Garden", "image.transpose(Image.ROTATE_90).save('turned.jpg', quality=90)")
        let turned = try Self.fingerprint(try #require(copies["turned.jpg"]))
        #expect(turned.distance(to: original) > Fingerprint.copyThreshold)
    }

    @Test("distinct photographs are farther apart than the threshold")
    func distinctPhotosDiffer() throws {
        var prints: [(String, Fingerprint)] = []
        for photo in Self.photos {
            prints.append((photo, try Self.fingerprint(Array(try Data(contentsOf: URL(fileURLWithPath: "\(Self.photoFolder)/\(photo).jpg"))))))
        }
        for (i, (name, print)) in prints.enumerated() {
            for (other, otherPrint) in prints[(i + 1)...] {
                #expect(print.distance(to: otherPrint) > Fingerprint.copyThreshold, "\(name) and \(other)")
            }
        }
    }

    @Test("the codec makes a miniature only when asked, and only with a preview")
    func miniatureOnlyWhenAsked() throws {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: "\(Self.photoFolder)/Wood.jpg")))
        func miniature(_ request: ThumbnailRequest) throws -> GreyMiniature? {
            try bytes.withUnsafeBytes { raw throws(ImageCodecError) in try ThumbnailMaker(request: request).makeThumbnail(from: raw) }.miniature
        }
        #expect(try miniature(ThumbnailRequest(previewLongSide: 1600)) == nil)
        #expect(try miniature(ThumbnailRequest(previewLongSide: 0, miniatureSide: 32)) == nil)
        #expect(try miniature(ThumbnailRequest(previewLongSide: 400, miniatureSide: 16))?.pixels.count == 256)
    }

    @Test("a flat image gives no fingerprint")
    func featureless() {
        #expect(throws: PerceptualHash.Refusal.self) {
            try PerceptualHash(side: 32).fingerprint(of: [UInt8](repeating: 128, count: 1024))
        }
        #expect(throws: PerceptualHash.Refusal.badSize(side: 32, pixelCount: 10)) {
            try PerceptualHash(side: 32).fingerprint(of: [UInt8](repeating: 128, count: 10))
        }
    }
}
