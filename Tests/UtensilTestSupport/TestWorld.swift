import Crypto
import Foundation
import Logging
import Testing
import UtensilCatalog
import UtensilCodec
import UtensilIngest

/// A complete set of utensild folders in a fresh temporary directory.
public struct TestWorld: Sendable {
    public let root: URL
    public var inbox: URL { root.appendingPathComponent("inbox") }
    public var rejected: URL { root.appendingPathComponent("rejected") }
    public var state: URL { root.appendingPathComponent("state") }
    public var originals: URL { state.appendingPathComponent("originals") }
    public var thumbnails: URL { state.appendingPathComponent("thumbnails") }

    public init() throws {
        root = URL(fileURLWithPath: "/tmp").appendingPathComponent("utensild-test-\(UUID().uuidString)")
        for folder in [root, inbox, state] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
    }

    public func settings(rejectDuplicateNames: Bool = true, rejectDuplicateContent: Bool = true, maxFileBytes: Int = 104_857_600, maxPixels: Int = 100_000_000) -> IngestSettings {
        IngestSettings(
            inbox: inbox.path, rejected: rejected.path, stateDirectory: state.path,
            thumbnail: ThumbnailRequest(size: 180, quality: 85, maxPixels: maxPixels), maxFileBytes: maxFileBytes,
            rejectDuplicateNames: rejectDuplicateNames, rejectDuplicateContent: rejectDuplicateContent)
    }

    /// Opens the catalog, reconciles and returns an engine, as `utensild` does at start.
    public func engine(_ settings: IngestSettings? = nil, busyTimeout: TimeInterval = 5) throws -> IngestEngine {
        let settings = settings ?? self.settings()
        let catalog = try Catalog(path: settings.catalogPath, busyTimeout: busyTimeout)
        _ = try Reconciler(settings: settings, catalog: catalog, logger: Self.quietLogger).reconcile()
        return IngestEngine(settings: settings, catalog: catalog, logger: Self.quietLogger, faults: FaultInjection())
    }

    public static let quietLogger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    /// Writes `bytes` into the inbox as `name` (a relative path; folders are created).
    @discardableResult
    public func drop(_ name: String, _ bytes: Data) throws -> URL {
        let url = inbox.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try bytes.write(to: url)
        return url
    }

    /// The drop at a path relative to the inbox, as the scanner would find it.
    public func found(_ name: String) throws -> Drop {
        let path = RawPath(inbox.appendingPathComponent(name).path)
        return Drop(path: path, inboxPath: Array(name.utf8), status: try InboxScanner.status(of: path))
    }

    public func ingest(_ name: String, with engine: IngestEngine) throws -> IngestOutcome {
        engine.ingest(try found(name))
    }

    public func files(in folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }

    public func sidecar(for rejectedName: String) throws -> [String: Any] {
        let data = try Data(contentsOf: rejected.appendingPathComponent(rejectedName + ".error.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    public func remove() {
        try? FileManager.default.removeItem(at: root)
    }
}

public func sha256Hex(_ data: Data) -> String {
    SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
}

/// The invariant every scenario ends with: each input is exactly one utensil (original
/// identical, thumbnail decodable at the right size) or one rejection with a valid sidecar, or
/// still in the inbox; no orphans, no temporaries; the database is sound.
public struct InvariantChecker {
    public let world: TestWorld

    public struct Census: Equatable, Sendable {
        public var utensils = 0
        public var rejections = 0
        public var stillInInbox = 0

        public init(utensils: Int = 0, rejections: Int = 0, stillInInbox: Int = 0) {
            self.utensils = utensils
            self.rejections = rejections
            self.stillInInbox = stillInInbox
        }
    }

    public init(world: TestWorld) { self.world = world }

    @discardableResult
    public func verify(inputs: [Data], sourceLocation: SourceLocation = #_sourceLocation) throws -> Census {
        let settings = world.settings()
        let catalog = try Catalog(path: settings.catalogPath)
        #expect(try catalog.integrityCheck() == ["ok"], sourceLocation: sourceLocation)
        let rows = try catalog.all()
        var seen: [String: Int] = [:]
        var census = Census()

        let originals = Set(world.files(in: world.originals))
        let thumbnails = Set(world.files(in: world.thumbnails))
        var expectedOriginals = Set<String>()
        var expectedThumbnails = Set<String>()
        let maker = ThumbnailMaker(request: ThumbnailRequest())
        for row in rows {
            let original = "\(row.id.uuidString).\(row.fileExtension)"
            let thumbnail = "\(row.id.uuidString).jpeg"
            expectedOriginals.insert(original)
            expectedThumbnails.insert(thumbnail)
            let bytes = try Data(contentsOf: world.originals.appendingPathComponent(original))
            #expect(sha256Hex(bytes) == row.sha256, "original of \(row.name) differs from its hash", sourceLocation: sourceLocation)
            let thumb = try Data(contentsOf: world.thumbnails.appendingPathComponent(thumbnail))
            let decoded = try thumb.withUnsafeBytes { raw in
                Result { () throws(ImageCodecError) in try maker.makeThumbnail(from: raw) }
            }.get()
            #expect(decoded.width == 180 && decoded.height == 180, sourceLocation: sourceLocation)
            seen[row.sha256, default: 0] += 1
            census.utensils += 1
        }
        #expect(originals == expectedOriginals, "originals/ and the rows disagree", sourceLocation: sourceLocation)
        #expect(thumbnails == expectedThumbnails, "thumbnails/ and the rows disagree", sourceLocation: sourceLocation)

        let rejectedFiles = world.files(in: world.rejected)
        let sidecars = Set(rejectedFiles.filter { $0.hasSuffix(".error.json") })
        for name in rejectedFiles where !name.hasSuffix(".error.json") {
            #expect(sidecars.contains(name + ".error.json"), "\(name) has no sidecar", sourceLocation: sourceLocation)
            let json = try world.sidecar(for: name)
            #expect((json["reason"] as? String).map { !$0.isEmpty } == true, sourceLocation: sourceLocation)
            let bytes = (try? Data(contentsOf: world.rejected.appendingPathComponent(name))) ?? Data()
            seen[sha256Hex(bytes), default: 0] += 1
            census.rejections += 1
        }
        for sidecar in sidecars {
            #expect(rejectedFiles.contains(String(sidecar.dropLast(".error.json".count))), "sidecar \(sidecar) has no file", sourceLocation: sourceLocation)
        }
        if let enumerator = FileManager.default.enumerator(atPath: world.inbox.path) {
            for case let path as String in enumerator {
                let url = world.inbox.appendingPathComponent(path)
                var isFolder: ObjCBool = false
                if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), !isFolder.boolValue {
                    seen[sha256Hex((try? Data(contentsOf: url)) ?? Data()), default: 0] += 1
                    census.stillInInbox += 1
                }
            }
        }
        for folder in [world.originals, world.thumbnails, world.rejected] {
            #expect(world.files(in: folder).filter { $0.hasPrefix(".tmp-") } == [], "temporary files left", sourceLocation: sourceLocation)
        }
        var expected: [String: Int] = [:]
        for input in inputs { expected[sha256Hex(input), default: 0] += 1 }
        #expect(seen == expected, "every input must be exactly one utensil, rejection or inbox file", sourceLocation: sourceLocation)
        return census
    }
}
