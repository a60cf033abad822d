import Foundation
import UtensilCodec
import UtensilLookalike
import UtensilStore

/// The renditions the ingest makes of each photo, written out so that two builds can be
/// compared file by file: `<name>.thumbnail.jpeg`, `.square.jpeg` and `.preview.jpeg`, and
/// one line per photo on standard output with its look-alike fingerprint (or `-` and why none).
enum RenditionDump {
    static func write(_ files: [(name: String, bytes: [UInt8])], to folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let request = IngestSettings(inbox: folder, rejected: folder, stateDirectory: folder).renditions
        let maker = ThumbnailMaker(request: request)
        let hash = PerceptualHash(side: request.miniatureSide)
        var out = ""
        for file in files {
            do {
                let made = try file.bytes.withUnsafeBytes { raw throws(ImageCodecError) in try maker.makeThumbnail(from: raw) }
                let renditions = [("thumbnail", made.jpeg), ("square", made.square), ("preview", made.preview?.jpeg)]
                for case let (kind, bytes?) in renditions {
                    try Data(bytes).write(to: URL(fileURLWithPath: "\(folder)/\(file.name).\(kind).jpeg"))
                }
                let fingerprint = try made.miniature.map { try hash.fingerprint(of: $0.pixels).description } ?? "-"
                out += "\(file.name)\t\(fingerprint)\n"
            } catch {
                out += "\(file.name)\t-\t\(error)\n"
            }
        }
        FileHandle.standardOutput.write(Data(out.utf8))
    }
}
