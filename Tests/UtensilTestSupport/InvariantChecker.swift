import Foundation
import Testing
import UtensilCatalogSQLite
import UtensilCatalogModel
import UtensilCodec
import UtensilCore

/// The invariant every scenario ends with, written once:
///
/// - every input is exactly one utensil (its original byte-identical: the SHA-256 recorded
///   before the drop matches the stored original and the row; its thumbnail present and
///   decodable at the right size, its preview present and decodable, the photo's aspect at
///   the preview's long side), or exactly one rejection with a valid sidecar, or — only
///   while a transient fault is still in force — still in the inbox;
/// - no file in `originals/`, `thumbnails/` or `previews/` lacks its row, no row lacks its files, no
///   temporary file is left anywhere in the state or rejected folders, no sidecar lacks its file;
/// - `PRAGMA integrity_check` is `ok`;
/// - and, when a daemon is running, the real `utensilctl check` agrees.
public struct InvariantChecker {
    public let world: TestWorld
    public let thumbnailSize: Int

    /// Where each input ended up.
    public struct Census: Equatable, Sendable {
        public var utensils = 0
        public var rejections = 0
        public var stillInInbox = 0

        public init(utensils: Int = 0, rejections: Int = 0, stillInInbox: Int = 0) {
            self.utensils = utensils
            self.rejections = rejections
            self.stillInInbox = stillInInbox
        }

        public var total: Int { utensils + rejections + stillInInbox }
    }

    /// The census and what the rejections were for.
    public struct Report: Sendable {
        public var census = Census()
        /// Rejection reason → how many.
        public var rejectionReasons: [String: Int] = [:]
    }

    /// Whether drops may still be waiting in the inbox.
    public enum Inbox: Sendable {
        /// A transient fault is still in force (or the daemon was stopped early): drops may wait.
        case mayHoldDrops
        /// No fault is in force any more: every input must have been settled.
        case mustBeEmpty
    }

    public init(world: TestWorld, thumbnailSize: Int = 180) {
        self.world = world
        self.thumbnailSize = thumbnailSize
    }

    /// Checks the invariant for inputs given as their bytes.
    @discardableResult
    public func verify(
        inputs: [Data], inbox: Inbox = .mayHoldDrops, controlSocket: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Census {
        try examine(
            inputHashes: inputs.map(sha256Hex), inbox: inbox, controlSocket: controlSocket,
            sourceLocation: sourceLocation
        ).census
    }

    /// Checks the invariant for inputs given as the SHA-256 (hex) of their bytes, recorded
    /// before they were dropped (a burst of thousands need not be held in memory).
    /// `atMostOnce` are inputs a race may have kept from the daemon altogether (a photo
    /// overwritten before it was read, one moved out of the inbox before it was taken): each
    /// may be found once, never twice.
    @discardableResult
    public func examine(
        inputHashes: [String], atMostOnce: [String] = [], inbox: Inbox = .mayHoldDrops, controlSocket: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Report {
        var report = Report()
        var seen: [String: Int] = [:]
        try checkCatalogAndFiles(seen: &seen, report: &report, sourceLocation: sourceLocation)
        try checkRejections(seen: &seen, report: &report, sourceLocation: sourceLocation)
        checkInbox(seen: &seen, report: &report, inbox: inbox, sourceLocation: sourceLocation)
        checkNoTemporaries(sourceLocation: sourceLocation)

        for hash in atMostOnce {
            let count = seen.removeValue(forKey: hash) ?? 0
            if count > 1 { Issue.record("an input was found \(count) times", sourceLocation: sourceLocation) }
        }
        var expected: [String: Int] = [:]
        for hash in inputHashes { expected[hash, default: 0] += 1 }
        if seen != expected {
            let missing = expected.filter { seen[$0.key, default: 0] < $0.value }.count
            let extra = seen.filter { expected[$0.key, default: 0] < $0.value }.count
            Issue.record(
                "every input must be exactly one utensil, rejection or inbox file: \(missing) inputs missing or short, \(extra) unexpected or twice (\(report.census))",
                sourceLocation: sourceLocation)
        }
        if let controlSocket {
            try checkWithUtensilctl(socket: controlSocket, sourceLocation: sourceLocation)
        }
        return report
    }

    // MARK: The parts

    private func checkCatalogAndFiles(seen: inout [String: Int], report: inout Report, sourceLocation: SourceLocation) throws {
        let catalog = try SQLiteCatalog(path: world.settings().catalogPath)
        #expect(try catalog.integrityCheck() == ["ok"], "PRAGMA integrity_check", sourceLocation: sourceLocation)
        let rows = try catalog.all()
        let originals = Set(world.files(in: world.originals))
        let thumbnails = Set(world.files(in: world.thumbnails))
        let previews = Set(world.files(in: world.previews))
        var expectedOriginals = Set<String>()
        var expectedThumbnails = Set<String>()
        let maker = ThumbnailMaker(request: ThumbnailRequest())
        for row in rows {
            let original = "\(row.id.uuidString).\(row.fileExtension)"
            let thumbnail = "\(row.id.uuidString).jpeg"
            expectedOriginals.insert(original)
            expectedThumbnails.insert(thumbnail)
            guard let bytes = try? Data(contentsOf: world.originals.appendingPathComponent(original)) else {
                Issue.record("\(row.name): original \(original) is missing", sourceLocation: sourceLocation)
                continue
            }
            #expect(sha256Hex(bytes) == row.sha256, "original of \(row.name) differs from its hash", sourceLocation: sourceLocation)
            #expect(bytes.count == row.bytes, "original of \(row.name) has the wrong size", sourceLocation: sourceLocation)
            if let thumb = try? Data(contentsOf: world.thumbnails.appendingPathComponent(thumbnail)) {
                let decoded = thumb.withUnsafeBytes { raw in
                    Result { () throws(ImageCodecError) in try maker.makeThumbnail(from: raw) }
                }
                switch decoded {
                case .success(let image):
                    #expect(
                        image.format == .jpeg && image.width == thumbnailSize && image.height == thumbnailSize,
                        "thumbnail of \(row.name) is \(image.format) \(image.width)×\(image.height)", sourceLocation: sourceLocation)
                case .failure(let error):
                    Issue.record("thumbnail of \(row.name) does not decode: \(error)", sourceLocation: sourceLocation)
                }
            } else {
                Issue.record("\(row.name): thumbnail \(thumbnail) is missing", sourceLocation: sourceLocation)
            }
            checkPreview(of: row, maker: maker, sourceLocation: sourceLocation)
            seen[sha256Hex(bytes), default: 0] += 1
            report.census.utensils += 1
        }
        #expect(
            originals == expectedOriginals,
            "originals/ and the rows disagree: \(originals.symmetricDifference(expectedOriginals).sorted().prefix(5))",
            sourceLocation: sourceLocation)
        #expect(
            thumbnails == expectedThumbnails,
            "thumbnails/ and the rows disagree: \(thumbnails.symmetricDifference(expectedThumbnails).sorted().prefix(5))",
            sourceLocation: sourceLocation)
        #expect(
            previews == expectedThumbnails,
            "previews/ and the rows disagree: \(previews.symmetricDifference(expectedThumbnails).sorted().prefix(5))",
            sourceLocation: sourceLocation)
        // A grid square may be missing (a utensil from before them), but never lacks its row.
        let squares = Set(world.files(in: world.squares))
        #expect(
            squares.isSubset(of: expectedThumbnails),
            "squares/ holds files of no row: \(squares.subtracting(expectedThumbnails).sorted().prefix(5))",
            sourceLocation: sourceLocation)
        for name in squares.intersection(expectedThumbnails).sorted().prefix(20) {
            let bytes = (try? Data(contentsOf: world.squares.appendingPathComponent(name))) ?? Data()
            let size = ThumbnailRequest.defaultSquareSide
            let decoded = bytes.withUnsafeBytes { raw in
                Result { () throws(ImageCodecError) in try maker.makeThumbnail(from: raw) }
            }
            #expect(
                (try? decoded.get()).map { $0.format == .jpeg && $0.width == size && $0.height == size } == true,
                "grid square \(name) is not a \(size) × \(size) JPEG", sourceLocation: sourceLocation)
        }
        let staged = world.stagedFiles()
        #expect(staged.isEmpty, "files left in staging/: \(staged.prefix(5))", sourceLocation: sourceLocation)
    }

    /// The preview of `row`: a JPEG of the photo's aspect (to a pixel), its long side the
    /// photo's, at most ``ThumbnailRequest/defaultPreviewLongSide`` (a JPEG's: a DCT-scaled
    /// decode, at least half of that).
    private func checkPreview(of row: UtensilRecord, maker: ThumbnailMaker, sourceLocation: SourceLocation) {
        let file = world.previews.appendingPathComponent("\(row.id.uuidString).jpeg")
        guard let bytes = try? Data(contentsOf: file) else {
            Issue.record("\(row.name): preview \(file.lastPathComponent) is missing", sourceLocation: sourceLocation)
            return
        }
        let decoded = bytes.withUnsafeBytes { raw in Result { () throws(ImageCodecError) in try maker.makeThumbnail(from: raw) } }
        switch decoded {
        case .success(let image):
            let long = min(ThumbnailRequest.defaultPreviewLongSide, max(row.width, row.height))
            let shown = max(image.width, image.height)
            let longSideRight = ["jpg", "jpeg"].contains(row.fileExtension) ? shown <= long && 2 * shown >= long : shown == long
            #expect(
                image.format == .jpeg && longSideRight
                    && abs(image.width * row.height - image.height * row.width) <= row.width + row.height,
                "preview of \(row.name) (\(row.width)×\(row.height)) is \(image.format) \(image.width)×\(image.height)",
                sourceLocation: sourceLocation)
        case .failure(let error):
            Issue.record("preview of \(row.name) does not decode: \(error)", sourceLocation: sourceLocation)
        }
    }

    private func checkRejections(seen: inout [String: Int], report: inout Report, sourceLocation: SourceLocation) throws {
        let suffix = RejectionSidecar.suffix
        let names = Set(world.files(in: world.rejected).filter { !$0.hasPrefix(".tmp-") })
        for name in names.sorted() {
            if names.contains(name + suffix) {
                // A rejected file beside its sidecar (a rejected `x.error.json` has one of its own).
                let bytes = (try? Data(contentsOf: world.rejected.appendingPathComponent(name))) ?? Data()
                if let reason = checkSidecar(of: name, size: bytes.count, sourceLocation: sourceLocation) {
                    report.rejectionReasons[reason, default: 0] += 1
                }
                seen[sha256Hex(bytes), default: 0] += 1
                report.census.rejections += 1
            } else if name.hasSuffix(suffix) {
                if !names.contains(String(name.dropLast(suffix.count))) {
                    Issue.record("sidecar \(name) has no file", sourceLocation: sourceLocation)
                }
            } else {
                Issue.record("rejected/\(name) has no sidecar", sourceLocation: sourceLocation)
            }
        }
    }

    /// The sidecar is valid JSON with the contract's fields; returns its reason.
    private func checkSidecar(of name: String, size: Int, sourceLocation: SourceLocation) -> String? {
        guard let json = try? world.sidecar(for: name) else {
            Issue.record("the sidecar of \(name) is not a JSON object", sourceLocation: sourceLocation)
            return nil
        }
        let reason = json["reason"] as? String
        #expect(reason.flatMap(RejectionReason.init(rawValue:)) != nil, "\(name): reason \(reason ?? "nil")", sourceLocation: sourceLocation)
        #expect((json["file"] as? String).map { !$0.isEmpty } == true, "\(name): file", sourceLocation: sourceLocation)
        #expect((json["message"] as? String).map { !$0.isEmpty } == true, "\(name): message", sourceLocation: sourceLocation)
        let rejectedAt = json["rejectedAt"] as? String ?? ""
        #expect(
            rejectedAt.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil, "\(name): rejectedAt \(rejectedAt)",
            sourceLocation: sourceLocation)
        #expect(json["bytes"] as? Int == size, "\(name): bytes \(json["bytes"] ?? "nil") but the file has \(size)", sourceLocation: sourceLocation)
        return reason
    }

    private func checkInbox(seen: inout [String: Int], report: inout Report, inbox: Inbox, sourceLocation: SourceLocation) {
        // By descriptor: a drop left at a path longer than PATH_MAX is seen too.
        var left: [String] = []
        for (path, bytes) in DeepFolder.files(below: world.inbox.path) {
            seen[sha256Hex(bytes ?? Data()), default: 0] += 1
            report.census.stillInInbox += 1
            left.append(path)
        }
        if inbox == .mustBeEmpty && !left.isEmpty {
            Issue.record(
                "no fault is in force, yet \(left.count) drops are still in the inbox: \(left.sorted().prefix(5))",
                sourceLocation: sourceLocation)
        }
    }

    private func checkNoTemporaries(sourceLocation: SourceLocation) {
        for folder in [world.state, world.rejected] {
            guard let enumerator = FileManager.default.enumerator(atPath: folder.path) else { continue }
            for case let path as String in enumerator where (path as NSString).lastPathComponent.hasPrefix(".tmp-") {
                Issue.record("temporary file left: \(folder.lastPathComponent)/\(path)", sourceLocation: sourceLocation)
            }
        }
    }

    /// The real `utensilctl check --json` against the running daemon: exit 0 and nothing found.
    private func checkWithUtensilctl(socket: String, sourceLocation: SourceLocation) throws {
        let run = try Utensilctl.run(["check", "--json"], socket: socket, timeout: 120)
        #expect(run.status == 0, "utensilctl check exited \(run.status): \(run.errors)", sourceLocation: sourceLocation)
        let report = run.json
        #expect(report?["ok"] as? Bool == true, "utensilctl check: \(run.output)", sourceLocation: sourceLocation)
        #expect(report?["integrity"] as? [String] == ["ok"], sourceLocation: sourceLocation)
    }
}
