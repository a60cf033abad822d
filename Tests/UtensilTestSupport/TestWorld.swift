import Crypto
import Foundation
import Logging
import Testing
import UtensilCatalogSQLite
import UtensilCatalogModel
import UtensilCodec
import UtensilCore
import UtensilIngest
import UtensilStore

/// A complete set of utensild folders in a fresh temporary directory.
public struct TestWorld: Sendable {
    public let root: URL
    public var inbox: URL { root.appendingPathComponent("inbox") }
    public var rejected: URL { root.appendingPathComponent("rejected") }
    public var state: URL { root.appendingPathComponent("state") }
    public var originals: URL { state.appendingPathComponent("originals") }
    public var thumbnails: URL { state.appendingPathComponent("thumbnails") }
    public var previews: URL { state.appendingPathComponent("previews") }
    /// `state/squares/`: the grid squares, which a utensil may lack (`rethumb --missing` makes them).
    public var squares: URL { state.appendingPathComponent("squares") }
    /// `state/staging/`: one folder per host, and what an older version staged directly in it.
    public var stagingRoot: URL { state.appendingPathComponent("staging") }
    /// This host's folder in `staging/` under the test settings (``settings(rejectDuplicateNames:rejectDuplicateContent:maxFileBytes:maxPixels:)``).
    public var staging: URL { URL(fileURLWithPath: settings().staging.description) }

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

    /// Opens the catalog, reconciles and returns an engine, as `utensild` does at start; its
    /// store (`engine.store`) is the one every operation of the test goes through.
    public func engine(
        _ settings: IngestSettings? = nil, busyTimeout: TimeInterval = 5, memory: MemoryBudget = .shared,
        logger: Logger = Self.quietLogger, faults: FaultInjection = FaultInjection(), lookalikePatience: Duration = .seconds(5)
    ) throws -> IngestEngine {
        let settings = settings ?? self.settings()
        let catalog = try SQLiteCatalog(path: settings.catalogPath, busyTimeout: busyTimeout)
        let store = UtensilStore(settings: settings, catalog: catalog, logger: logger, faults: faults)
        _ = try store.reconcile()
        return IngestEngine(store: store, memory: memory, lookalikePatience: lookalikePatience)
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

    /// Every file below `state/staging/`, in any host's folder or directly in it, as paths
    /// relative to it (the host folders themselves are not files).
    public func stagedFiles() -> [String] {
        var found: [String] = []
        for name in files(in: stagingRoot) {
            var isFolder: ObjCBool = false
            let url = stagingRoot.appendingPathComponent(name)
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue {
                found += files(in: url).map { "\(name)/\($0)" }
            } else {
                found.append(name)
            }
        }
        return found
    }

    public func sidecar(for rejectedName: String) throws -> [String: Any] {
        let data = try Data(contentsOf: rejected.appendingPathComponent(rejectedName + ".error.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    public func remove() {
        removeTree(root.path)
    }
}

/// Removes a folder tree however deep: Foundation's removal gives up on a path longer than
/// `PATH_MAX`, `rm -r` (which works by descriptor) does not.
public func removeTree(_ path: String) {
    try? FileManager.default.removeItem(atPath: path)
    guard FileManager.default.fileExists(atPath: path) else { return }
    let rm = Process()
    rm.executableURL = URL(fileURLWithPath: "/bin/rm")
    rm.arguments = ["-rf", "--", path]
    try? rm.run()
    rm.waitUntilExit()
}

public func sha256Hex(_ data: Data) -> String {
    SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
}
