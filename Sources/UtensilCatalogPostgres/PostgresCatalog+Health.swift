import Foundation
import Logging
import PostgresNIO
import UtensilCatalogModel

/// Backup and health: a snapshot of the whole catalog, and a check of what the triggers keep.
extension PostgresCatalog {
    /// Reads the whole catalog (every utensil, the trash too, every favorite and decoder crash) in one
    /// REPEATABLE READ, READ ONLY transaction: one consistent instant, writers go on. The rows
    /// are held in memory until the snapshot is released (about 1 KB a utensil).
    public func snapshot() async throws(CatalogError) -> any CatalogSnapshot {
        let logger = logger
        let contents = try await transaction(unbounded: true) { connection in
            try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", logger: logger)
            let utensils = try await Self.utensils(
                "SELECT \(unescaped: UtensilColumns.list) FROM utensils ORDER BY id", on: connection, logger: logger)
            var favorites: [CatalogFavorite] = []
            let marks = try await connection.query(
                "SELECT user_name, utensil_id FROM favorites ORDER BY user_name, utensil_id", logger: logger)
            for try await (user, id) in marks.decode((String, UUID).self) {
                favorites.append(CatalogFavorite(user: user, utensilID: id))
            }
            var crashes: [CatalogDecoderCrash] = []
            let counts = try await connection.query(
                "SELECT source_key, crashes FROM decoder_crashes ORDER BY source_key", logger: logger)
            for try await (sourceKey, count) in counts.decode((String, Int).self) {
                crashes.append(CatalogDecoderCrash(sourceKey: sourceKey, crashes: count))
            }
            var pairs: [CatalogNotACopy] = []
            let marked = try await connection.query(
                "SELECT utensil_id, other_id FROM not_a_copy ORDER BY utensil_id, other_id", logger: logger)
            for try await (id, other) in marked.decode((UUID, UUID).self) {
                pairs.append(CatalogNotACopy(id, other))
            }
            return CatalogContents(utensils: utensils, favorites: favorites, decoderCrashes: crashes, notACopy: pairs)
        }
        return PostgresCatalogSnapshot(contents: contents, writer: snapshotWriter)
    }

    /// What PostgreSQL cannot check by itself here: that the counts the trigger keeps
    /// (`utensil_count`, `category_counts`) match the rows. `["ok"]` when they do.
    public func integrityCheck() async throws(CatalogError) -> [String] {
        let logger = logger
        return try await transaction(unbounded: true) { connection in
            try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", logger: logger)
            var problems: [String] = []
            let total = try await connection.query(
                """
                SELECT (SELECT utensils FROM utensil_count), (SELECT count(*) FROM utensils WHERE trashed_at IS NULL)
                """, logger: logger)
            for try await (kept, counted) in total.decode((Int?, Int).self) where kept != counted {
                problems.append("utensil_count says \(kept.map(String.init) ?? "nothing"), the rows \(counted)")
            }
            let categories = try await connection.query(
                """
                SELECT coalesce(k.category_key, r.category_key), coalesce(k.utensils, 0), coalesce(r.utensils, 0)
                FROM category_counts k FULL JOIN (
                    SELECT category_key, count(*) AS utensils FROM utensils
                    WHERE category_key IS NOT NULL AND trashed_at IS NULL GROUP BY category_key
                ) r ON r.category_key = k.category_key
                WHERE k.utensils IS DISTINCT FROM r.utensils
                """, logger: logger)
            for try await (key, kept, counted) in categories.decode((String, Int, Int).self) {
                problems.append("category_counts says \(kept) for \(key), the rows \(counted)")
            }
            return problems.isEmpty ? ["ok"] : problems
        }
    }
}

/// A PostgreSQL catalog's snapshot: its rows, read in one transaction, written out by the
/// SQLite side (``CatalogSnapshotWriter``).
struct PostgresCatalogSnapshot: CatalogSnapshot {
    let contents: CatalogContents
    let writer: any CatalogSnapshotWriter

    func utensils() -> [SnapshotUtensil] {
        contents.utensils.map {
            SnapshotUtensil(id: $0.id, fileExtension: $0.fileExtension, sha256: $0.sha256, trashed: $0.trashedAt != nil)
        }
    }

    func categoryCount() -> Int {
        Set(contents.utensils.lazy.filter { $0.trashedAt == nil }.compactMap(\.categoryKey)).count
    }

    func writeSQLite(to path: String) throws(CatalogError) {
        try writer.writeSQLite(contents, to: path)
    }
}
