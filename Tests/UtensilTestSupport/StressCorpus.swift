import Foundation

/// Real photographs for the stress tests: crops of the wallpaper package's 2560×1600 nature
/// photos (`mate-backgrounds`), each crop, scale, brightness and quality different, so that no
/// two files have the same bytes. Made once with Pillow and cached (with a manifest of their
/// SHA-256) under `.build/stress-corpus/`, which git ignores; `UTENSIL_STRESS_CORPUS` moves it.
public struct StressCorpus: Sendable {
    public enum Kind: String, Sendable {
        /// 160–480 px wide, 10–60 KB.
        case small
        /// 2000–2560 px wide, about 0.2–1 MB.
        case large
    }

    public struct Photo: Sendable {
        public var url: URL
        public var sha256: String
        /// The name to drop it as: unique within the corpus.
        public var dropName: String { url.lastPathComponent }
    }

    public static let sourceFolder = "/usr/share/backgrounds/mate/nature"
    /// Bumped whenever the generator changes, so an old cache is never reused.
    static let version = "v1"

    public let folder: URL

    public init() {
        if let override = ProcessInfo.processInfo.environment["UTENSIL_STRESS_CORPUS"] {
            folder = URL(fileURLWithPath: override).appendingPathComponent(Self.version)
        } else {
            // Tests/UtensilTestSupport/StressCorpus.swift → the package root.
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent()
            folder = root.appendingPathComponent(".build/stress-corpus").appendingPathComponent(Self.version)
        }
    }

    /// The first `count` photos of `kind`, generating those not yet cached.
    public func photos(_ kind: Kind, count: Int) throws -> [Photo] {
        let kindFolder = folder.appendingPathComponent(kind.rawValue)
        try FileManager.default.createDirectory(at: kindFolder, withIntermediateDirectories: true)
        var manifest = try readManifest(kind)
        let missing = (0..<count).filter { manifest[Self.name(kind, $0)] == nil }
        if !missing.isEmpty {
            let made = try generate(kind, indexes: missing, into: kindFolder)
            manifest.merge(made) { $1 }
            try writeManifest(kind, manifest)
        }
        return (0..<count).map { index in
            let name = Self.name(kind, index)
            return Photo(url: kindFolder.appendingPathComponent(name), sha256: manifest[name]!)
        }
    }

    static func name(_ kind: Kind, _ index: Int) -> String {
        String(format: "%@ %05d.jpg", kind == .small ? "Small" : "Large", index)
    }

    private func manifestURL(_ kind: Kind) -> URL {
        folder.appendingPathComponent("\(kind.rawValue).sha256")
    }

    /// `sha256  name` lines, as `sha256sum` writes them; entries whose file is gone are dropped.
    private func readManifest(_ kind: Kind) throws -> [String: String] {
        guard let text = try? String(contentsOf: manifestURL(kind), encoding: .utf8) else { return [:] }
        var manifest: [String: String] = [:]
        let kindFolder = folder.appendingPathComponent(kind.rawValue)
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let name = parts[1].trimmingCharacters(in: .whitespaces)
            if FileManager.default.fileExists(atPath: kindFolder.appendingPathComponent(name).path) {
                manifest[name] = String(parts[0])
            }
        }
        return manifest
    }

    private func writeManifest(_ kind: Kind, _ manifest: [String: String]) throws {
        let text = manifest.sorted { $0.key < $1.key }.map { "\($0.value)  \($0.key)\n" }.joined()
        try text.write(to: manifestURL(kind), atomically: true, encoding: .utf8)
    }

    static let script = #"""
    import glob, hashlib, json, random, sys
    from PIL import Image, ImageEnhance
    job = json.load(sys.stdin)
    paths = sorted(glob.glob(job["sources"] + "/*.jpg"))
    if not paths:
        sys.exit("no photos in " + job["sources"] + " (install mate-backgrounds: make test-deps)")
    large = job["kind"] == "large"
    sources = []
    for path in paths:
        image = Image.open(path).convert("RGB")
        if large:
            if image.width >= 2500:  # The 2560-pixel-wide ones.
                sources.append(image)
        else:
            sources.append(image.resize((image.width // 2, image.height // 2), Image.BILINEAR))
    made = {}
    for index in job["indexes"]:
        rng = random.Random(f'{job["kind"]}-{index}')
        source = sources[index % len(sources)]
        if large:
            # Native resolution: a window of the photo, cheap to make and as costly to ingest as a real one.
            width = rng.randrange(2000, min(2561, source.width + 1))
            height = rng.randrange(1250, min(1601, source.height + 1))
            x = rng.randrange(0, source.width - width + 1)
            y = rng.randrange(0, source.height - height + 1)
            image = source.crop((x, y, x + width, y + height))
        else:
            width = rng.randrange(160, 481)
            height = rng.randrange(120, 361)
            scale = rng.uniform(0.25, 1.0)
            crop_w = max(16, min(source.width, int(source.width * scale)))
            crop_h = max(16, min(source.height, int(crop_w * height / width)))
            x = rng.randrange(0, source.width - crop_w + 1)
            y = rng.randrange(0, source.height - crop_h + 1)
            image = source.crop((x, y, x + crop_w, y + crop_h)).resize((width, height), Image.BILINEAR)
            image = ImageEnhance.Brightness(image).enhance(rng.uniform(0.85, 1.15))
        # A few pixels of the index itself: different bytes even if two crops coincide.
        for bit in range(24):
            image.putpixel((bit, 0), (255, 255, 255) if (index >> bit) & 1 else (0, 0, 0))
        name = job["names"][str(index)]
        path = job["folder"] + "/" + name
        image.save(path, "JPEG", quality=rng.randrange(75, 93))
        with open(path, "rb") as f:
            made[name] = hashlib.sha256(f.read()).hexdigest()
    json.dump(made, sys.stdout)
    """#

    private func generate(_ kind: Kind, indexes: [Int], into kindFolder: URL) throws -> [String: String] {
        guard FileManager.default.fileExists(atPath: Self.sourceFolder) else {
            throw TestFailure("the stress corpus is made from \(Self.sourceFolder): install mate-backgrounds (make test-deps)")
        }
        let job: [String: Any] = [
            "kind": kind.rawValue, "sources": Self.sourceFolder, "folder": kindFolder.path, "indexes": indexes,
            "names": Dictionary(uniqueKeysWithValues: indexes.map { (String($0), Self.name(kind, $0)) }),
        ]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", Self.script]
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let collector = PipeCollector(output, errors)
        input.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: job))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        let (out, err) = collector.finish()
        guard process.terminationStatus == 0,
              let made = try JSONSerialization.jsonObject(with: out) as? [String: String], made.count == indexes.count
        else {
            throw TestFailure(
                "python3 with Pillow could not make the stress corpus (is python3-pil installed?): \(String(decoding: err, as: UTF8.self))")
        }
        return made
    }
}
