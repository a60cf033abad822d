import Testing
@testable import UtensilCodec

@Suite("The thumbnail itself: size, encoding, scale choice, geometry, threads")
struct ThumbnailOutputTests {
    static let fixtures: Result<[String: [UInt8]], any Error> = Result {
        try FixtureTool.generate(#"""
quadrants(400, 300).save('landscape.jpg', quality=92)
quadrants(300, 400).save('portrait.png')
# A frame one pixel wide around the centre square of a 300×200 image: the crop must keep it.
im = Image.new('RGB', (300, 200), (250, 250, 250))
im.paste((200, 20, 20), (50, 0, 250, 200))
im.paste((250, 250, 250), (51, 1, 249, 199))
im.save('framed.png')
for i, size in enumerate([(640, 480), (333, 500), (1000, 999), (50, 70)]):
    quadrants(*size).save('many%d.jpg' % i, quality=90)
    quadrants(*size).save('many%d.png' % i)
"""#)
    }

    static func fixture(_ name: String) throws -> [UInt8] {
        try #require(try fixtures.get()[name], "fixture \(name)")
    }

    @Test("A decodable baseline JPEG of exactly size × size", arguments: [1, 16, 64, 180, 301])
    func exactSize(size: Int) throws {
        for name in ["landscape.jpg", "portrait.png"] {
            let made = try thumbnail(try Self.fixture(name), size: size)
            #expect(made.jpeg.starts(with: [0xFF, 0xD8, 0xFF]))
            let decoded = try DecodedThumbnail(made.jpeg)
            #expect(decoded.width == size && decoded.height == size, "\(name) at \(size)")
            #expect(decoded.isBaseline)
        }
    }

    @Test("Reported dimensions and format are the photo's")
    func metadata() throws {
        let jpeg = try thumbnail(try Self.fixture("landscape.jpg"))
        #expect((jpeg.format, jpeg.width, jpeg.height, jpeg.orientation) == (.jpeg, 400, 300, 1))
        let png = try thumbnail(try Self.fixture("portrait.png"))
        #expect((png.format, png.width, png.height, png.orientation) == (.png, 300, 400, 1))
    }

    @Test("Quality is honoured")
    func quality() throws {
        let bytes = try Self.fixture("landscape.jpg")
        let low = try thumbnail(bytes, quality: 20), high = try thumbnail(bytes, quality: 98)
        #expect(low.jpeg.count < high.jpeg.count)
    }

    @Test("The centre square is kept: its frame reaches the thumbnail's edges")
    func centreCrop() throws {
        let decoded = try DecodedThumbnail(try thumbnail(try Self.fixture("framed.png"), size: 200).jpeg)
        for (x, y) in [(0, 100), (199, 100), (100, 0), (100, 199)] {
            let edge = decoded.mean(atX: x, y: y, edge: 2)
            #expect(edge.g < 200, "frame at (\(x), \(y)) missing: \(edge)")
        }
        #expect(decoded.mean(atX: 100, y: 100).isClose(to: RGB(250, 250, 250)))
    }

    @Test("DCT scale: the smallest that still covers the thumbnail")
    func dctScale() {
        let standard = DCTScale.available()
        #expect(standard.contains(DCTScale(num: 1, denom: 8)))
        #expect(!standard.contains { $0.factor > 1 })
        #expect(DCTScale.smallestCovering(width: 4032, height: 3024, size: 180) == DCTScale(num: 1, denom: 8))
        #expect(DCTScale.smallestCovering(width: 3024, height: 4032, size: 180) == DCTScale(num: 1, denom: 8))
        let dune = DCTScale.smallestCovering(width: 1680, height: 1050, size: 180)
        #expect(dune == DCTScale(num: 1, denom: 4))
        #expect(dune.scaled(1050) == 263)
        #expect(DCTScale.smallestCovering(width: 400, height: 300, size: 180) == DCTScale(num: 5, denom: 8))
        #expect(DCTScale.smallestCovering(width: 100, height: 100, size: 180) == .identity)
        #expect(DCTScale.smallestCovering(width: 180, height: 5000, size: 180) == .identity)
        // TJSCALED rounds up.
        #expect(DCTScale(num: 1, denom: 8).scaled(1441) == 181)
        #expect(DCTScale.smallestCovering(width: 1441, height: 1441, size: 181) == DCTScale(num: 1, denom: 8))
    }

    @Test("Resampling weights: normalised, centred, bilinear when enlarging")
    func weights() {
        let down = ResampleWeights(inputCount: 378, start: 0, end: 378, outputCount: 180)
        for output in 0..<180 {
            var total: Float = 0
            for tap in 0..<down.count[output] { total += down.weights[output * down.stride + tap] }
            #expect(abs(total - 1) < 1e-4)
        }
        let identity = ResampleWeights(inputCount: 50, start: 0, end: 50, outputCount: 50)
        for output in 0..<50 {
            let taps = (0..<identity.count[output]).map { identity.weights[output * identity.stride + $0] }
            let index = output - identity.first[output]
            #expect(abs(taps[index] - 1) < 1e-6 && taps.reduce(0, +) - taps[index] < 1e-6)
        }
        let up = ResampleWeights(inputCount: 2, start: 0, end: 2, outputCount: 4)
        #expect(up.count[1] == 2 && abs(up.weights[up.stride] - 0.75) < 1e-6 && abs(up.weights[up.stride + 1] - 0.25) < 1e-6)
    }

    @Test("Many threads at once give the same thumbnails as one")
    func concurrent() async throws {
        let names = (0..<4).flatMap { ["many\($0).jpg", "many\($0).png"] }
        var inputs: [[UInt8]] = []
        for name in names { inputs.append(try Self.fixture(name)) }
        let serial = try inputs.map { try thumbnail($0, size: 96) }
        let parallel = try await withThrowingTaskGroup(of: (Int, Thumbnail).self) { group in
            for _ in 0..<6 {
                for (index, bytes) in inputs.enumerated() {
                    group.addTask { (index, try thumbnail(bytes, size: 96)) }
                }
            }
            var results: [(Int, Thumbnail)] = []
            for try await result in group { results.append(result) }
            return results
        }
        #expect(parallel.count == inputs.count * 6)
        for (index, made) in parallel { #expect(made == serial[index], "\(names[index])") }
    }
}
