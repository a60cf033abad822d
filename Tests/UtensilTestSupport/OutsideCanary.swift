import Foundation
import Glibc
import Testing

/// Files outside the test's folders that the daemon must never read, move or delete: valid
/// photos (so that one read by mistake turns up as an unexpected utensil in the invariant
/// check) and a non-photo, each remembered by bytes, inode, modification and change time.
public struct OutsideCanary: Sendable {
    public let folder: URL
    private let files: [String: Fingerprint]

    struct Fingerprint: Equatable, Sendable {
        var bytes: Data
        var inode: UInt64
        var modification: Int64
        var change: Int64
    }

    /// Writes `files` (name → bytes) into a fresh folder `outside-<id>` under `root`.
    public init(in root: URL, files: [String: Data]) throws {
        folder = root.appendingPathComponent("outside-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var prints: [String: Fingerprint] = [:]
        for (name, bytes) in files {
            let url = folder.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try bytes.write(to: url)
            prints[name] = try Self.fingerprint(url)
        }
        self.files = prints
    }

    /// Remembers the files already in `folder` (not below it).
    public init(existing folder: URL) throws {
        self.folder = folder
        var prints: [String: Fingerprint] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            prints[name] = try Self.fingerprint(folder.appendingPathComponent(name))
        }
        self.files = prints
    }

    /// Records an issue for every canary file that is gone, moved, rewritten or touched.
    public func verifyUntouched(sourceLocation: SourceLocation = #_sourceLocation) {
        for (name, before) in files.sorted(by: { $0.key < $1.key }) {
            guard let now = try? Self.fingerprint(folder.appendingPathComponent(name)) else {
                Issue.record("the file outside the test's folders \(name) is gone", sourceLocation: sourceLocation)
                continue
            }
            #expect(now == before, "the file outside the test's folders \(name) was changed", sourceLocation: sourceLocation)
        }
    }

    static func fingerprint(_ url: URL) throws -> Fingerprint {
        var raw = stat()
        guard lstat(url.path, &raw) == 0 else { throw CocoaError(.fileNoSuchFile) }
        return Fingerprint(
            bytes: try Data(contentsOf: url), inode: UInt64(raw.st_ino),
            modification: Int64(raw.st_mtim.tv_sec) * 1_000_000_000 + Int64(raw.st_mtim.tv_nsec),
            change: Int64(raw.st_ctim.tv_sec) * 1_000_000_000 + Int64(raw.st_ctim.tv_nsec))
    }
}
