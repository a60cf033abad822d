import Testing
@testable import UtensilCodec

@Suite("Thumbnails stand the way the photo was taken")
struct OrientationGoldenTests {
    /// A 240×160 picture (as displayed) with coloured quadrants, stored under each orientation,
    /// as JPEG (EXIF in both byte orders) and as PNG (`eXIf` chunk).
    static let fixtures: Result<[String: [UInt8]], any Error> = Result {
        try FixtureTool.generate(#"""
displayed = quadrants(240, 160)
for n in range(1, 9):
    save_oriented(displayed, 'o%d.jpg' % n, n, big_endian=(n % 2 == 1), quality=95)
    save_oriented(displayed, 'o%d.png' % n, n)
"""#)
    }

    @Test("JPEG and PNG, EXIF orientations 1–8", arguments: ["jpg", "png"], 1...8)
    func orientation(fileExtension: String, orientation: Int) throws {
        let files = try Self.fixtures.get()
        let bytes = try #require(files["o\(orientation).\(fileExtension)"])
        let made = try thumbnail(bytes)
        #expect(made.orientation == orientation)
        #expect(made.width == 240 && made.height == 160, "displayed dimensions")
        let decoded = try DecodedThumbnail(made.jpeg)
        #expect(decoded.width == 180 && decoded.height == 180)
        for (index, (seen, wanted)) in zip(decoded.quadrantMeans, FixtureScripts.quadrantColors).enumerated() {
            #expect(seen.isClose(to: wanted), "quadrant \(index): \(seen), expected \(wanted)")
        }
    }
}
