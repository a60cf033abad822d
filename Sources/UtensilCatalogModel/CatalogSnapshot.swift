import Foundation

/// One utensil as a backup needs it: which files it has and what its original's bytes hash to.
public struct SnapshotUtensil: Sendable, Equatable {
    public var id: UUID
    /// The original's extension (`originals/<id>.<ext>`).
    public var fileExtension: String
    /// Lower-case hex SHA-256 of the original, as the catalog recorded it.
    public var sha256: String
    public var trashed: Bool

    public init(id: UUID, fileExtension: String, sha256: String, trashed: Bool) {
        self.id = id
        self.fileExtension = fileExtension
        self.sha256 = sha256
        self.trashed = trashed
    }
}

/// The catalog frozen at one instant, whatever its backend: the utensils it holds and, written
/// out, a SQLite file of it (the one portable form a backup takes). Taking a snapshot is
/// quick; reading and writing it out do not hold up writers of the live catalog.
public protocol CatalogSnapshot: Sendable {
    /// Every utensil of the snapshot, the trash too, in id order.
    func utensils() async throws(CatalogError) -> [SnapshotUtensil]
    /// How many categories the utensils not in the trash have.
    func categoryCount() async throws(CatalogError) -> Int
    /// Writes the snapshot as a new SQLite database at `path` (a file that does not exist), in
    /// rollback-journal mode so that the one file is all of it, made durable.
    func writeSQLite(to path: String) async throws(CatalogError)
}
