import Foundation
import Testing

/// Makes real JPEG and PNG files with Pillow, in one python3 run per batch.
/// Pillow is a test dependency (`make test` installs python3-pil); without it the test fails.
public enum TestImages {
    public struct Spec: Codable {
        var path: String
        var format: String  // "JPEG" or "PNG"
        var width: Int
        var height: Int
        var seed: Int
        var mode: String = "RGB"
        var exifOrientation: Int? = nil
        var progressive: Bool = false
    }

    public static let script = #"""
    import json, random, sys
    from PIL import Image
    for spec in json.load(sys.stdin):
        rng = random.Random(spec["seed"])
        small = Image.new("RGB", (8, 6))
        small.putdata([(rng.randrange(256), rng.randrange(256), rng.randrange(256)) for _ in range(48)])
        image = small.resize((spec["width"], spec["height"]), Image.BICUBIC)
        if spec["mode"] != "RGB":
            image = image.convert(spec["mode"])
        options = {}
        if spec["format"] == "JPEG":
            options["quality"] = 90
            options["progressive"] = spec["progressive"]
            if spec.get("exifOrientation"):
                exif = Image.Exif()
                exif[0x0112] = spec["exifOrientation"]
                options["exif"] = exif.tobytes()
        image.save(spec["path"], spec["format"], **options)
    """#

    /// Writes every spec'd image; returns their bytes in order.
    @discardableResult
    public static func make(_ specs: [Spec]) throws -> [Data] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script]
        let input = Pipe()
        process.standardInput = input
        try process.run()
        input.fileHandleForWriting.write(try JSONEncoder().encode(specs))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TestFailure("python3 with Pillow could not make test images (is python3-pil installed?)")
        }
        return try specs.map { try Data(contentsOf: URL(fileURLWithPath: $0.path)) }
    }

    public static func jpeg(_ path: String, width: Int = 640, height: Int = 480, seed: Int = 1) -> Spec {
        Spec(path: path, format: "JPEG", width: width, height: height, seed: seed)
    }

    public static func png(_ path: String, width: Int = 320, height: Int = 240, seed: Int = 1, mode: String = "RGB") -> Spec {
        Spec(path: path, format: "PNG", width: width, height: height, seed: seed, mode: mode)
    }
}

public struct TestFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
