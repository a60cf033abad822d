import Foundation
import Logging
import PostgresNIO
import UtensilCatalogModel

/// Loading a whole catalog (``CatalogContents``, read from a backup's SQLite file) into an
/// empty PostgreSQL catalog: `utensild restore` on PostgreSQL.
extension PostgresCatalog {
    /// Loads `contents` in one transaction, after locking `utensils` against every other
    /// writer (another host) and finding it empty; see ``CatalogLoading/load(_:)``. The
    /// utensils go in ``rowsPerInsert`` to a statement (one round trip each); the trigger
    /// keeps `utensil_count` and `category_counts` as they go in.
    public func load(_ contents: CatalogContents) async throws(CatalogError) {
        let logger = logger
        try await transaction(unbounded: true) { connection in
            try await connection.query("LOCK TABLE utensils IN EXCLUSIVE MODE", logger: logger)
            let held = try await Self.value(Int.self, "SELECT count(*) FROM utensils", on: connection, logger: logger) ?? 0
            guard held == 0 else { throw CatalogError.notEmpty(utensils: held) }
            for start in stride(from: 0, to: contents.utensils.count, by: Self.rowsPerInsert) {
                let rows = contents.utensils[start..<min(start + Self.rowsPerInsert, contents.utensils.count)]
                try await connection.query(Self.insertion(ofAll: rows), logger: logger)
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
            for pair in contents.notACopy {
                try await connection.query(
                    "INSERT INTO not_a_copy (utensil_id, other_id) VALUES (\(pair.utensilID), \(pair.otherID))", logger: logger)
            }
        }
    }

    /// Utensils per INSERT of ``load(_:)``: 20 bound values each, well below PostgreSQL's
    /// 65,535 parameters a statement.
    static let rowsPerInsert = 500

    /// One INSERT of every record of `records` (at most ``rowsPerInsert``), every column bound,
    /// every column of a utensil.
    static func insertion(ofAll records: ArraySlice<UtensilRecord>) -> PostgresQuery {
        var sql = PostgresQuery.StringInterpolation(literalCapacity: 300 + 60 * records.count, interpolationCount: 20 * records.count)
        appendInsertion(of: records, to: &sql)
        return PostgresQuery(stringInterpolation: sql)
    }

    /// Appends ``insertion(ofAll:)``'s statement to `sql`.
    static func appendInsertion(of records: ArraySlice<UtensilRecord>, to sql: inout PostgresQuery.StringInterpolation) {
        sql.appendLiteral(
            """
            INSERT INTO utensils (id, name, name_key, search_key, extension, created_at, width, height, bytes, sha256,
                source_key, name_claim, content_claim, category, category_key, added_by, updated_at, trashed_at, sort_key, host,
                fingerprint, near_duplicate_of, near_duplicate_name, near_duplicate_distance)
            VALUES
            """)
        for (index, record) in records.enumerated() {
            sql.appendLiteral(index == 0 ? " (" : ", (")
            sql.appendInterpolation(record.id)
            for text in [record.name, record.nameKey, record.searchKey, record.fileExtension] {
                sql.appendLiteral(", ")
                sql.appendInterpolation(text)
            }
            sql.appendLiteral(", ")
            sql.appendInterpolation(record.createdAt)
            for number in [record.width, record.height, record.bytes] {
                sql.appendLiteral(", ")
                sql.appendInterpolation(number)
            }
            sql.appendLiteral(", ")
            sql.appendInterpolation(record.sha256)
            for text in [record.sourceKey, record.nameClaim, record.contentClaim, record.category, record.categoryKey, record.addedBy] {
                sql.appendLiteral(", ")
                sql.appendInterpolation(text)
            }
            for date in [record.updatedAt, record.trashedAt] {
                sql.appendLiteral(", ")
                sql.appendInterpolation(date)
            }
            sql.appendLiteral(", ")
            sql.appendInterpolation(record.sortKey)
            sql.appendLiteral(", ")
            sql.appendInterpolation(record.host)
            sql.appendLiteral(", ")
            sql.appendInterpolation(record.fingerprint)
            sql.appendLiteral(", ")
            sql.appendInterpolation(record.nearDuplicateOf)
            sql.appendLiteral(", ")
            sql.appendInterpolation(record.nearDuplicateName)
            sql.appendLiteral(", ")
            sql.appendInterpolation(record.nearDuplicateDistance)
            sql.appendLiteral(")")
        }
    }
}
