import Foundation
import Testing
import UtensilCodec
import UtensilLookalike

/// The finer look at two photos whose fingerprints are near, on a real photograph (Debian's
/// mate-backgrounds `Wood.jpg`, a bench's surface): the same picture cropped a little is a copy,
/// the same surface with something else lying on it is not.
@Suite("Look-alike copy confirmation")
struct CopyConfirmationTests {
    static let wood = "/usr/share/backgrounds/mate/nature/Wood.jpg"
    let confirmation = CopyConfirmation()

    /// The confirmation's miniature of `bytes`, through the real codec.
    static func miniature(_ bytes: [UInt8]) throws -> [UInt8] {
        let side = CopyConfirmation.side
        let maker = ThumbnailMaker(request: ThumbnailRequest(size: 8, previewLongSide: 4 * side, miniatureSide: side))
        let made = try bytes.withUnsafeBytes { raw throws(ImageCodecError) in try maker.makeThumbnail(from: raw) }
        return try #require(made.miniature).pixels
    }

    static func woodMiniature() throws -> [UInt8] {
        #expect(FileManager.default.fileExists(atPath: wood), "install the Debian package mate-backgrounds")
        return try miniature(Array(try Data(contentsOf: URL(fileURLWithPath: wood))))
    }

    @Test("a picture is a copy of itself, with nothing left over")
    func itself() throws {
        let wood = try Self.woodMiniature()
        let comparison = try confirmation.compare(wood, wood)
        #expect(comparison.residual < 0.01)
        #expect(comparison.correlation > 0.999)
        #expect(try confirmation.areCopies(wood, wood))
    }

    @Test("the picture cropped by 4 % a side and brightened is still a copy, either way round")
    func cropped() throws {
        let side = CopyConfirmation.side
        let wood = try Self.woodMiniature()
        // The crop, resampled to the full edge (nearest pixel), 8 % brighter.
        let inset = Double(side) * 0.04, span = Double(side) - 2 * inset
        var crop = [UInt8](repeating: 0, count: side * side)
        for y in 0..<side {
            for x in 0..<side {
                let sx = Int(inset + (Double(x) + 0.5) * span / Double(side)), sy = Int(inset + (Double(y) + 0.5) * span / Double(side))
                crop[y * side + x] = UInt8(min(Double(wood[sy * side + sx]) * 1.08, 255))
            }
        }
        #expect(try confirmation.areCopies(wood, crop))
        #expect(try confirmation.areCopies(crop, wood))
    }

    @Test("the same surface with a handle lying on it is not a copy")
    func somethingElseOnIt() throws {
        let side = CopyConfirmation.side
        let wood = try Self.woodMiniature()
        var withHandle = wood
        for y in 30..<33 {
            for x in 12..<40 { withHandle[y * side + x] = 25 }
        }
        let comparison = try confirmation.compare(wood, withHandle)
        #expect(comparison.residual > CopyConfirmation.copyResidual, "residual \(comparison.residual)")
        #expect(try !confirmation.areCopies(withHandle, wood))
    }

    @Test("an image of another size is refused")
    func badSize() {
        #expect(throws: CopyConfirmation.Refusal.badSize(side: CopyConfirmation.side, pixelCount: 10)) {
            try confirmation.compare([UInt8](repeating: 0, count: 10), [UInt8](repeating: 0, count: 64 * 64))
        }
    }
}
