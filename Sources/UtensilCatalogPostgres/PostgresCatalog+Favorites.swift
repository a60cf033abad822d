import Foundation
import Logging
import PostgresNIO
import UtensilCatalogModel

/// Favorites: which utensils a user has marked (the table `favorites`).
extension PostgresCatalog {
    public func setFavorite(id: UUID, of user: String, _ favorite: Bool) async throws(CatalogError) -> UtensilRecord {
        let logger = logger
        return try await transaction { connection in
            // FOR SHARE: the utensil cannot be trashed or deleted until the mark is in.
            let current = try await Self.utensil(
                "SELECT \(unescaped: UtensilColumns.list) FROM utensils WHERE id = \(id) FOR SHARE", on: connection, logger: logger)
            guard let record = current, record.trashedAt == nil else { throw CatalogError.notFound }
            if favorite {
                try await connection.query(
                    "INSERT INTO favorites (user_name, utensil_id) VALUES (\(user), \(id)) ON CONFLICT DO NOTHING", logger: logger)
            } else {
                try await connection.query(
                    "DELETE FROM favorites WHERE user_name = \(user) AND utensil_id = \(id)", logger: logger)
            }
            return record
        }
    }

    public func favorites(of user: String, among ids: [UUID]) async throws(CatalogError) -> Set<UUID> {
        if ids.isEmpty { return [] }
        let logger = logger
        return try await read { connection in
            var found = Set<UUID>()
            let rows = try await connection.query(
                "SELECT utensil_id FROM favorites WHERE user_name = \(user) AND utensil_id = ANY(\(ids))", logger: logger)
            for try await (id) in rows.decode(UUID.self) { found.insert(id) }
            return found
        }
    }
}
