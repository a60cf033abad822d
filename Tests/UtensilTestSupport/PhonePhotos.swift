import Foundation
import UtensilCodec

/// HEIC and WebP files made at test time, as phones and browsers hand them out: by Debian's
/// `heif-enc` (libheif-examples), `cwebp` and `img2webp` (webp), and `Tests/Fixtures/phone_photos.py`
/// for what those cannot write (a rotation, a grid of tiles, header bombs).
public enum PhonePhotos {
    /// Where `phone_photos.py` lives.
    public static let fixtureFolder = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures").path

    /// The colours of the quadrant test picture, top-left, top-right, bottom-left, bottom-right.
    public static let quadrantColors: [[Int]] = [[220, 30, 30], [30, 200, 40], [30, 60, 220], [240, 220, 30]]

    /// Python run before every script: `phone` (the module), `quadrants(w, h, colors, mode)`,
    /// `QUADRANTS`, `tool(*command)` and `PHOTOS` (the wallpaper photographs of mate-backgrounds).
    static let prelude = """
        import subprocess, sys
        sys.path.insert(0, \(String(reflecting: fixtureFolder)))
        import phone_photos as phone
        from PIL import Image
        PHOTOS = '/usr/share/backgrounds/mate/nature'
        QUADRANTS = \(quadrantColors.map { "(\($0[0]), \($0[1]), \($0[2]))" }.joined(separator: ", ")),
        def quadrants(width, height, colors=QUADRANTS, mode='RGB'):
            image = Image.new(mode, (width, height))
            boxes = [(0, 0, width // 2, height // 2), (width // 2, 0, width, height // 2),
                     (0, height // 2, width // 2, height), (width // 2, height // 2, width, height)]
            for box, color in zip(boxes, colors):
                image.paste(color, box)
            return image
        def tool(*command):
            subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

        """

    /// Runs `script` (after ``prelude``) in `folder` with Debian's python3.
    public static func make(in folder: URL, _ script: String) throws {
        try runPython(prelude + script, in: folder)
    }

    /// Runs Debian's python3 on `script` with `arguments` (in `folder`, if given); a failure
    /// carries what the script wrote to stderr.
    public static func runPython(_ script: String, arguments: [String] = [], in folder: URL? = nil) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script] + arguments
        process.currentDirectoryURL = folder
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TestFailure(
                "python3 could not make test files (it needs python3-pil, libheif-examples, webp and mate-backgrounds): \(String(decoding: message, as: UTF8.self))")
        }
    }

    /// The mean colour of each quadrant's centre patch in a thumbnail JPEG, in the order of
    /// ``quadrantColors``.
    public static func quadrantMeans(ofThumbnail jpeg: Data) throws -> [[Int]] {
        let side = 180
        let pixels = try jpeg.withUnsafeBytes { raw in
            try Result { () throws(ImageCodecError) in
                try ThumbnailMaker(request: ThumbnailRequest(size: side)).makeRGBPreview(from: raw)
            }.get()
        }
        return [(45, 45), (135, 45), (45, 135), (135, 135)].map { centre in
            var sums = [0, 0, 0], count = 0
            for y in centre.1 - 12..<centre.1 + 12 {
                for x in centre.0 - 12..<centre.0 + 12 {
                    for channel in 0..<3 { sums[channel] += Int(pixels[(y * side + x) * 3 + channel]) }
                    count += 1
                }
            }
            return sums.map { $0 / count }
        }
    }

    /// Whether every channel of `got` is within `tolerance` of `want`, quadrant by quadrant.
    public static func matches(_ got: [[Int]], _ want: [[Int]], tolerance: Int = 16) -> Bool {
        got.count == want.count && zip(got, want).allSatisfy { zip($0, $1).allSatisfy { abs($0 - $1) <= tolerance } }
    }
}
