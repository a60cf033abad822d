import Foundation
import Testing
import UtensilCatalogModel
import UtensilTestSupport

/// HEIC and WebP drops, as iPhones, Android phones and browsers hand them out, through the real
/// daemon: each becomes a utensil with its original unchanged and an upright 180 × 180
/// thumbnail, or the rejection the contract gives it.
@Suite("HEIC and WebP drops through the daemon", .serialized, .tags(.spawnsProcesses))
struct PhoneFormatsDaemonTests {
    @Test func heicAndWebPDropsBecomeUprightUtensilsAndBadOnesAreRejected() throws {
        let world = try TestWorld()
        defer { world.remove() }
        let source = world.root.appendingPathComponent("source")
        try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
        try PhonePhotos.make(in: source, """
            shown = quadrants(640, 480)
            # Stored a quarter turn off, with irot and (as an iPhone writes it) EXIF orientation 6 beside it.
            phone.write_heic_displayed('rotated.heic', shown, 3, exif_orientation=6)
            phone.write_heic('grid.heic', quadrants(1000, 750), grid=(3, 2))
            Image.open(PHOTOS + '/Storm.jpg').save('storm.png')
            tool('/usr/bin/heif-enc', '-q', '80', '-p', 'preset=ultrafast', 'storm.png', '-o', 'storm.heic')
            quadrants(640, 480, [(0, 0, 0, 0)] + [c + (255,) for c in QUADRANTS[1:]], 'RGBA').save('alpha.png')
            tool('/usr/bin/cwebp', '-q', '90', 'alpha.png', '-o', 'alpha.webp')
            shown.save('shown.png')
            Image.new('RGB', (640, 480), (0, 0, 0)).save('black.png')
            tool('/usr/bin/img2webp', '-lossy', '-q', '90', '-d', '300', 'shown.png', 'black.png', '-o', 'animated.webp')
            data = open('storm.heic', 'rb').read()
            open('truncated.heic', 'wb').write(data[:len(data) // 2])
            phone.write_heic_bomb('bomb.heic', 40000, 40000)
            """)
        func bytes(_ name: String) throws -> Data { try Data(contentsOf: source.appendingPathComponent(name)) }
        let white = [255, 255, 255]
        let quads = PhonePhotos.quadrantColors
        // Dropped name, source file, stored extension, displayed size, quadrant colours (nil: a real photo).
        let photos: [(String, String, String, Int, Int, [[Int]]?)] = [
            ("Rotated spoon.heic", "rotated.heic", "heic", 640, 480, quads),
            ("Tiled ladle.HEIF", "grid.heic", "heif", 1000, 750, quads),
            ("Storm whisk.heic", "storm.heic", "heic", 1920, 1280, nil),
            ("Clear fork.webp", "alpha.webp", "webp", 640, 480, [white] + quads.dropFirst()),
            ("Animated pan.WebP", "animated.webp", "webp", 640, 480, quads),
        ]
        let daemon = try RunningDaemon(world: world)
        var inputs: [Data] = []
        let rejects = [("Cut.heic", "truncated.heic"), ("Bomb.heic", "bomb.heic")]
        for (name, file) in photos.map({ ($0.0, $0.1) }) + rejects {
            let data = try bytes(file)
            inputs.append(data)
            try world.drop(name, data)
        }

        let rows = try daemon.waitForCatalog("five utensils") { $0.count == 5 }
        // A row commits before its files are renamed into place; its drop leaves the inbox after both.
        let photoNames = Set(photos.map(\.0))
        try daemon.waitUntil("the five photos to leave the inbox") { photoNames.isDisjoint(with: world.files(in: world.inbox)) }
        for (name, file, fileExtension, width, height, colours) in photos {
            let stem = (name as NSString).deletingPathExtension
            let row = try #require(rows.first { $0.name == stem }, "\(name) is no utensil")
            #expect(row.fileExtension == fileExtension && row.width == width && row.height == height, "\(name): \(row)")
            let original = world.originals.appendingPathComponent("\(row.id.uuidString).\(fileExtension)")
            #expect(try Data(contentsOf: original) == (try bytes(file)), "\(name): the original is stored unchanged")
            let thumbnail = try Data(contentsOf: world.thumbnails.appendingPathComponent("\(row.id.uuidString).jpeg"))
            if let colours {
                let means = try PhonePhotos.quadrantMeans(ofThumbnail: thumbnail)
                #expect(PhonePhotos.matches(means, colours), "\(name): thumbnail quadrants \(means), expected \(colours)")
            }
        }

        try daemon.waitUntil("the truncated and the bomb HEIC to be rejected") {
            world.files(in: world.rejected).contains("Cut.heic.error.json")
                && world.files(in: world.rejected).contains("Bomb.heic.error.json")
        }
        #expect(try world.sidecar(for: "Cut.heic")["reason"] as? String == "corrupt-image")
        let bomb = try world.sidecar(for: "Bomb.heic")
        #expect(bomb["reason"] as? String == "too-many-pixels")
        #expect((bomb["message"] as? String)?.contains("40000×40000") == true, "refused from the header: \(bomb)")
        #expect(daemon.process.isRunning)
        #expect(try daemon.terminate() == 0)
        let census = try InvariantChecker(world: world).verify(inputs: inputs)
        #expect(census == .init(utensils: 5, rejections: 2, stillInInbox: 0))
    }
}
