import Foundation
import UtensilCodec

/// One input through the codec exactly as the ingest engine calls it: `sniff`, then
/// `makeThumbnail` with the daemon's default limits. Any result is fine as long as it is a
/// thumbnail or a typed error that agrees with the bytes; a crash, a sanitizer report, a hang
/// (libFuzzer's `-timeout`) or runaway memory (`-rss_limit_mb`) is a finding.
enum CodecHarness {
    static let request = ThumbnailRequest()  // 180 px, quality 85, 100 000 000 pixels
    static let maker = ThumbnailMaker(request: request)
    /// The formats utensild decodes (the others are `unsupported` from their magic bytes alone).
    static let decoded: Set<SniffedFormat> = [.jpeg, .png, .heic, .avif, .webp]

    /// Runs the checks; returns what happened, for people.
    @discardableResult
    static func check(_ bytes: UnsafeRawBufferPointer) -> String {
        let format = ThumbnailMaker.sniff(bytes)
        do throws(ImageCodecError) {
            let thumbnail = try maker.makeThumbnail(from: bytes)
            precondition(decoded.contains(format), "a thumbnail from \(format) bytes")
            precondition(thumbnail.format == format)
            precondition(thumbnail.width > 0 && thumbnail.height > 0)
            precondition(thumbnail.width * thumbnail.height <= request.maxPixels)
            precondition((1...8).contains(thumbnail.orientation))
            let encoded = thumbnail.jpeg.withUnsafeBytes { ThumbnailMaker.sniff($0) }
            precondition(encoded == .jpeg && thumbnail.jpeg.count > 100, "the thumbnail is not a JPEG")
            return "thumbnail of a \(thumbnail.width)×\(thumbnail.height) \(format.displayName)"
        } catch {
            switch error {
            case .unrecognizedFormat:
                precondition(format == .unknown, "\(format) bytes called unrecognised")
            case .unsupported:
                precondition(format != .unknown, "unknown bytes called a known format")
            case .tooManyPixels(let width, let height, let limit):
                precondition(limit == request.maxPixels && width * height > limit, "\(error)")
            case .corrupt(let detail):
                precondition(decoded.contains(format), "\(format) bytes called corrupt")
                precondition(!detail.isEmpty)
            case .tooMuchMetadata:
                precondition(format == .png, "\(format) bytes with too much PNG metadata")
            }
            return "\(error)"
        }
    }
}

#if UTENSIL_LIBFUZZER
@_cdecl("LLVMFuzzerTestOneInput")
public func codecFuzzOneInput(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    CodecHarness.check(UnsafeRawBufferPointer(start: data.map(UnsafeRawPointer.init), count: count))
    return 0
}
#else
/// Without libFuzzer: runs the same checks over every file named (or found in a folder named)
/// on the command line, for replaying a crash file under a debugger or a sanitizer.
@main
enum CodecReplay {
    static func main() throws {
        var count = 0
        for argument in CommandLine.arguments.dropFirst() {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: argument, isDirectory: &isFolder) else {
                throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: argument])
            }
            let files = isFolder.boolValue
                ? try FileManager.default.contentsOfDirectory(atPath: argument).sorted().map { argument + "/" + $0 }
                : [argument]
            for file in files {
                let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
                let started = ContinuousClock.now
                let outcome = bytes.withUnsafeBytes { CodecHarness.check($0) }
                print("\(file): \(outcome) (\(ContinuousClock.now - started))")
                count += 1
            }
        }
        print("\(count) inputs: no crash")
    }
}
#endif
