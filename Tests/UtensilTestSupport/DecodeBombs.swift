import Foundation

/// Small files that are large decodes (Adam7 PNGs, progressive JPEGs), made by
/// `bench/decode_bombs.py`, which `make bench` uses too.
public enum DecodeBombs {
    /// Writes the files into `folder` and returns them by name: `Adam7 N.png`, `Progressive N.jpg`
    /// (4:2:0) and `Progressive 444 N.jpg`, each `side` × `side` pixels of a distinct flat colour;
    /// `Lying N.heic` and `Lying N.avif`, declaring 300 × 300 but coded `lyingSide` square.
    public static func make(
        in folder: URL, side: Int = 10000, pngs: Int, jpegs: Int, jpegs444: Int = 0,
        lyingHEIC: Int = 0, lyingAVIF: Int = 0, lyingSide: Int = 16384
    ) throws -> [String: Data] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [
            generator.path, folder.path, "--side", String(side), "--png", String(pngs), "--jpeg", String(jpegs),
            "--jpeg-444", String(jpegs444), "--lying-heic", String(lyingHEIC), "--lying-avif", String(lyingAVIF),
            "--lying-side", String(lyingSide),
        ]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TestFailure("\(generator.path) failed (\(process.terminationStatus)); it needs /usr/bin/python3 with Pillow (python3-pil)")
        }
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            files[name] = try Data(contentsOf: folder.appendingPathComponent(name))
        }
        return files
    }

    static var generator: URL {
        // Tests/UtensilTestSupport/DecodeBombs.swift → the package root.
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("bench/decode_bombs.py")
    }
}
