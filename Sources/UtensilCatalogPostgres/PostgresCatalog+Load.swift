import Foundation
import Logging
import PostgresNIO
import UtensilCatalogModel

/// Loading a whole catalog (``CatalogContents``, read from a backup's SQLite file) into an
/// empty PostgreSQL catalog: `utensild restore` on PostgreSQL.
extension PostgresCatalog {
    /// Loads `contents` in one transaction, after locking `utensils` against every other
    /// writer (another host) and finding it empty; see ``CatalogLoading/load(_:)``. The
    /// trigger keeps `utensil_count` and `category_counts` as the rows go in.
    public func load(_ contents: CatalogContents) async throws(CatalogError) {
        let logger = logger
        try await transaction { connection in
            try await connection.query("LOCK TABLE utensils IN EXCLUSIVE MODE", logger: logger)
            let held = try await Self.value(Int.self, "SELECT count(*) FROM utensils", on: connection, logger: logger) ?? 0
            guard held == 0 else { throw CatalogError.notEmpty(utensils: held) }
            for record in contents.utensils {
                try await connection.query(Self.insertion(of: record), logger: logger)
            }
            for favorite in contents.favorites {
                try await connection.query(
                    "INSERT INTO favorites (user_name, utensil_id) VALUES (\(favorite.user), \(favorite.utensilID))", logger: logger)
            }
            for count in contents.decoderCrashes {
                try await connection.query(
                    """
                    INSERT INTO decoder_crashes (source_key, crashes) VALUES (\(count.sourceKey), \(count.crashes))
                    ON CONFLICT (source_key) DO UPDATE SET crashes = excluded.crashes
                    """, logger: logger)
            }
        }
    }
}
