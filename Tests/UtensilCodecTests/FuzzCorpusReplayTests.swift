import Foundation
import Testing
import UtensilCodec

/// `make test` replays what the fuzzer found: every file of the committed corpus
/// (`fuzz/corpus`, minimised by libFuzzer) and every crash or hang ever fixed
/// (`fuzz/regressions`) goes through `sniff` and `makeThumbnail` with the daemon's limits, and
/// must come back as a thumbnail or a typed error that agrees with the bytes.
@Suite("Fuzz corpus replay")
struct FuzzCorpusReplayTests {
    /// The repository's `fuzz` folder, found upwards from this file (this test also runs from
    /// the codec-only package in `fuzz/`, through a symbolic link).
    static func fuzzFolder() throws -> URL {
        var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while folder.path != "/" {
            let candidate = folder.appendingPathComponent("fuzz/corpus")
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate.deletingLastPathComponent() }
            folder = folder.deletingLastPathComponent()
        }
        throw FixtureTool.Failure(description: "no fuzz/corpus folder above \(#filePath)")
    }

    static func files(in name: String) throws -> [URL] {
        let folder = try fuzzFolder().appendingPathComponent(name)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { folder.appendingPathComponent($0) }
    }

    @Test("Every corpus and regression file is a thumbnail or a typed error, in bounded time",
          .timeLimit(.minutes(10)))
    func replay() throws {
        let corpus = try Self.files(in: "corpus")
        #expect(corpus.count >= 100, "the committed corpus has only \(corpus.count) files")
        let maker = ThumbnailMaker(request: ThumbnailRequest())
        let decoded: Set<SniffedFormat> = [.jpeg, .png, .heic, .avif, .webp]
        var thumbnails = 0
        for file in corpus + (try Self.files(in: "regressions")) {
            let bytes = try Data(contentsOf: file)
            let started = ContinuousClock.now
            let format = bytes.withUnsafeBytes { ThumbnailMaker.sniff($0) }
            let result = bytes.withUnsafeBytes { raw in
                Result { () throws(ImageCodecError) in try maker.makeThumbnail(from: raw) }
            }
            let elapsed = ContinuousClock.now - started
            // A guard against hangs, far above any real decode (milliseconds here).
            #expect(elapsed < .seconds(30), "\(file.lastPathComponent) took \(elapsed)")
            switch result {
            case .success(let thumbnail):
                thumbnails += 1
                #expect(decoded.contains(format), "\(file.lastPathComponent): a thumbnail from \(format) bytes")
                #expect(thumbnail.width * thumbnail.height <= maker.request.maxPixels && thumbnail.width > 0 && thumbnail.height > 0)
                #expect(thumbnail.jpeg.withUnsafeBytes { ThumbnailMaker.sniff($0) } == .jpeg)
            case .failure(.unrecognizedFormat):
                #expect(format == .unknown, "\(file.lastPathComponent): \(format) bytes called unrecognised")
            case .failure(.unsupported):
                #expect(format != .unknown, "\(file.lastPathComponent): unknown bytes called a known format")
            case .failure(.tooManyPixels(let width, let height, let limit)):
                #expect(width * height > limit, "\(file.lastPathComponent)")
            case .failure(.corrupt(let detail)):
                #expect(decoded.contains(format) && !detail.isEmpty, "\(file.lastPathComponent): \(format) bytes called corrupt")
            case .failure(.tooMuchMetadata):
                #expect(format == .png, "\(file.lastPathComponent): \(format) bytes with too much PNG metadata")
            }
        }
        #expect(thumbnails > 0, "no corpus file made a thumbnail: the corpus lost its seeds")
    }
}
