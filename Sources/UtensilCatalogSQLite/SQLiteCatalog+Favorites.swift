import Foundation
import GRDB
import UtensilCatalogModel

/// Favorites: which utensils a user has marked (the table `favorite`, migration `v6-favorites`).
extension SQLiteCatalog {
    /// Marks or unmarks a utensil not in the trash as a favorite of `user`; see
    /// ``CatalogBackend/setFavorite(id:of:_:)``.
    public func setFavorite(id: UUID, of user: String, _ favorite: Bool) throws(CatalogError) -> UtensilRecord {
        do {
            return try writer.write { db in
                guard let record = try UtensilRecord.fetchOne(db, key: id), record.trashedAt == nil else {
                    throw CatalogError.notFound
                }
                if favorite {
                    try db.execute(
                        sql: "INSERT INTO favorite(userName, utensilId) VALUES (?, ?) ON CONFLICT DO NOTHING",
                        arguments: [user, id.uuidString])
                } else {
                    try db.execute(
                        sql: "DELETE FROM favorite WHERE userName = ? AND utensilId = ?", arguments: [user, id.uuidString])
                }
                return record
            }
        } catch let error as CatalogError {
            throw error
        } catch {
            throw CatalogError.from(error)
        }
    }

    /// Which of `ids` are favorites of `user`.
    public func favorites(of user: String, among ids: [UUID]) throws(CatalogError) -> Set<UUID> {
        if ids.isEmpty { return [] }
        return try read { db in
            var found = Set<UUID>()
            // SQLite binds at most 32,766 values per statement: a page is far below, but be safe.
            for chunk in stride(from: 0, to: ids.count, by: 500).map({ ids[$0..<min($0 + 500, ids.count)] }) {
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                let rows = try String.fetchAll(
                    db, sql: "SELECT utensilId FROM favorite WHERE userName = ? AND utensilId IN (\(marks))",
                    arguments: StatementArguments([user] + chunk.map(\.uuidString)))
                for text in rows { if let id = UUID(uuidString: text) { found.insert(id) } }
            }
            return found
        }
    }
}
