import Testing
@testable import UtensilCodec

@Suite("PNG colour types, depths, transparency and interlacing")
struct PNGColorTypeTests {
    /// Each fixture is 64×48 with four quadrants; `expected` gives their colours after
    /// compositing on white.
    static let cases: [(name: String, expected: [RGB])] = {
        let quads = FixtureScripts.quadrantColors
        let greys = [RGB(0, 0, 0), RGB(85, 85, 85), RGB(170, 170, 170), RGB(255, 255, 255)]
        return [
            ("rgb8", quads), ("rgba8", quads), ("palette8", quads), ("grey8", greys),
            ("grey2", greys), ("palette4", quads), ("rgb16", quads), ("rgba16", quads), ("grey16", greys),
            ("greyalpha8", [RGB(255, 255, 255), RGB(128, 128, 128), RGB(0, 0, 0), RGB(191, 191, 191)]),
            ("rgba-half", [RGB(255, 255, 255), RGB(142, 227, 147), RGB(30, 60, 220), RGB(247, 237, 142)]),
            ("palette-trns", [RGB(255, 255, 255), quads[1], RGB(142, 157, 237), quads[3]]),
            ("rgb-trns", [RGB(255, 255, 255), quads[1], quads[2], quads[3]]),
            ("grey-trns", [greys[0], RGB(255, 255, 255), greys[2], greys[3]]),
            ("rgb8-interlaced", quads), ("rgba16-interlaced", quads), ("palette4-interlaced", quads),
            ("grey2-interlaced", greys), ("pillow-rgba", [RGB(255, 255, 255), quads[1], quads[2], quads[3]]),
            ("pillow-la", greys), ("pillow-p", quads),
        ]
    }()

    static let fixtures: Result<[String: [UInt8]], any Error> = Result {
        try FixtureTool.generate(#"""
W, H = 64, 48
Q = QUADRANTS
G = [0, 85, 170, 255]
q = lambda x, y: quadrant_index(x, y, W, H)
plte = Q + [(0, 0, 0)] * 4
write_png('rgb8.png', W, H, 2, 8, lambda x, y: Q[q(x, y)])
write_png('rgba8.png', W, H, 6, 8, lambda x, y: Q[q(x, y)] + (255,))
write_png('palette8.png', W, H, 3, 8, lambda x, y: (q(x, y),), plte=plte)
write_png('grey8.png', W, H, 0, 8, lambda x, y: (G[q(x, y)],))
write_png('grey2.png', W, H, 0, 2, lambda x, y: (q(x, y),))
write_png('palette4.png', W, H, 3, 4, lambda x, y: (q(x, y) + 4,), plte=[(0, 0, 0)] * 4 + Q)
write_png('rgb16.png', W, H, 2, 16, lambda x, y: tuple(c * 257 for c in Q[q(x, y)]))
write_png('rgba16.png', W, H, 6, 16, lambda x, y: tuple(c * 257 for c in Q[q(x, y)]) + (65535,))
write_png('grey16.png', W, H, 0, 16, lambda x, y: (G[q(x, y)] * 257,))
write_png('greyalpha8.png', W, H, 4, 8, lambda x, y: [(0, 0), (0, 127), (0, 255), (0, 64)][q(x, y)])
write_png('rgba-half.png', W, H, 6, 8, lambda x, y: Q[q(x, y)] + ((0, 128, 255, 128)[q(x, y)],))
write_png('palette-trns.png', W, H, 3, 8, lambda x, y: (q(x, y),), plte=plte, trns=bytes([0, 255, 128, 255]))
write_png('rgb-trns.png', W, H, 2, 8, lambda x, y: Q[q(x, y)], trns=struct.pack('>HHH', *Q[0]))
write_png('grey-trns.png', W, H, 0, 8, lambda x, y: (G[q(x, y)],), trns=struct.pack('>H', 85))
write_png('rgb8-interlaced.png', W, H, 2, 8, lambda x, y: Q[q(x, y)], interlace=True)
write_png('rgba16-interlaced.png', W, H, 6, 16, lambda x, y: tuple(c * 257 for c in Q[q(x, y)]) + (65535,), interlace=True)
write_png('palette4-interlaced.png', W, H, 3, 4, lambda x, y: (q(x, y),), plte=plte, interlace=True)
write_png('grey2-interlaced.png', W, H, 0, 2, lambda x, y: (q(x, y),), interlace=True)
rgba = quadrants(W, H, colors=[(0, 0, 0, 0)] + [c + (255,) for c in Q[1:]], mode='RGBA')
rgba.save('pillow-rgba.png')
quadrants(W, H, colors=[(g, 255) for g in G], mode='LA').save('pillow-la.png')
quadrants(W, H).quantize(4).save('pillow-p.png')
for name in ['rgb8', 'rgba16', 'palette4', 'grey2']:
    a = Image.open(name + '.png').convert('RGBA').tobytes()
    b = Image.open(name + '-interlaced.png').convert('RGBA').tobytes()
    assert a == b, name
"""#)
    }

    @Test("Decodes to the expected colours, alpha composited on white", arguments: cases.indices)
    func colours(_ index: Int) throws {
        let (name, expected) = Self.cases[index]
        let bytes = try #require(try Self.fixtures.get()["\(name).png"], "fixture \(name)")
        let made = try thumbnail(bytes)
        #expect(made.format == .png)
        #expect(made.width == 64 && made.height == 48)
        let decoded = try DecodedThumbnail(made.jpeg)
        for (quadrant, (seen, wanted)) in zip(decoded.quadrantMeans, expected).enumerated() {
            #expect(seen.isClose(to: wanted), "\(name) quadrant \(quadrant): \(seen), expected \(wanted)")
        }
    }
}
