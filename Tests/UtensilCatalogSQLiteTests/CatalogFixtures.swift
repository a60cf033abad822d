import Foundation
import UtensilCatalogModel
import UtensilCore

/// A new folder `<label>-<UUID>` in the temporary directory, for a test's catalog.
func temporaryFolder(_ label: String) throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}

/// A row for `name` as an ingest makes one: claiming its name and its content (`sha`), in
/// `category`. A suite with a `record` of its own uses that one.
func record(_ name: String, sha: String = UUID().uuidString, category: String? = nil) -> UtensilRecord {
    let key = UtensilName.uniquenessKey(for: name)
    return UtensilRecord(
        id: UUID(), name: name, nameKey: key, searchKey: UtensilName.searchKey(for: name), fileExtension: "jpg",
        createdAt: Date(), width: 1, height: 1, bytes: 1, sha256: sha, sourceKey: nil, nameClaim: key,
        contentClaim: sha, category: category)
}
