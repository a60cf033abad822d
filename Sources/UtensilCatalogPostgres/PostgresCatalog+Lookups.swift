import Foundation
import Logging
import PostgresNIO
import UtensilCatalogModel

/// Finding utensils one at a time, and counting them.
extension PostgresCatalog {
    public func utensil(id: UUID) async throws(CatalogError) -> UtensilRecord? {
        try await first("SELECT \(unescaped: UtensilColumns.list) FROM utensils WHERE id = \(id)")
    }

    public func utensil(sourceKey: String) async throws(CatalogError) -> UtensilRecord? {
        try await first("SELECT \(unescaped: UtensilColumns.list) FROM utensils WHERE source_key = \(sourceKey)")
    }

    public func utensil(sameFileAs fileIdentity: String) async throws(CatalogError) -> UtensilRecord? {
        var bindings = PostgresBindings()
        SameFileKeys(fileIdentity).append(to: &bindings)
        return try await first(PostgresQuery(unsafeSQL: PostgresLookupSQL.sameFile(first: 1), binds: bindings))
    }

    public func utensil(nameKey: String) async throws(CatalogError) -> UtensilRecord? {
        var bindings = PostgresBindings()
        bindings.append(nameKey)
        return try await first(PostgresQuery(unsafeSQL: PostgresLookupSQL.byName(first: 1), binds: bindings))
    }

    public func utensil(sha256: String) async throws(CatalogError) -> UtensilRecord? {
        var bindings = PostgresBindings()
        bindings.append(sha256)
        return try await first(PostgresQuery(unsafeSQL: PostgresLookupSQL.byContent(first: 1), binds: bindings))
    }

    public func utensils(nameKey: String) async throws(CatalogError) -> [UtensilRecord] {
        try await all("""
            SELECT \(unescaped: UtensilColumns.list) FROM utensils
            WHERE name_key = \(nameKey) AND trashed_at IS NULL ORDER BY created_at DESC, id DESC
            """)
    }

    /// Read from the count the trigger keeps, not counted when asked.
    public func count() async throws(CatalogError) -> Int {
        let logger = logger
        return try await read { connection in
            try await Self.value(Int.self, "SELECT utensils FROM utensil_count", on: connection, logger: logger) ?? 0
        }
    }

    public func countAll() async throws(CatalogError) -> Int {
        let logger = logger
        return try await read { connection in
            try await Self.value(Int.self, "SELECT count(*) FROM utensils", on: connection, logger: logger) ?? 0
        }
    }

    public func allIDs() async throws(CatalogError) -> Set<UUID> {
        let logger = logger
        return try await read { connection in
            var ids = Set<UUID>()
            for try await (id) in try await connection.query("SELECT id FROM utensils", logger: logger).decode(UUID.self) {
                ids.insert(id)
            }
            return ids
        }
    }

    /// `uuid` orders bytewise, which is the order of the ids' text: as the SQLite catalog's.
    public func ids(after id: UUID?, limit: Int) async throws(CatalogError) -> [UUID] {
        let logger = logger
        let limit = max(0, limit)
        return try await read { connection in
            var ids: [UUID] = []
            let query: PostgresQuery = if let id {
                "SELECT id FROM utensils WHERE id > \(id) ORDER BY id LIMIT \(limit)"
            } else {
                "SELECT id FROM utensils ORDER BY id LIMIT \(limit)"
            }
            for try await (id) in try await connection.query(query, logger: logger).decode(UUID.self) { ids.append(id) }
            return ids
        }
    }

    /// The rows of a query selecting ``UtensilColumns/list``.
    func all(_ query: PostgresQuery) async throws(CatalogError) -> [UtensilRecord] {
        let logger = logger
        return try await read { connection in try await Self.utensils(query, on: connection, logger: logger) }
    }

    /// The first row of a query selecting ``UtensilColumns/list``.
    func first(_ query: PostgresQuery) async throws(CatalogError) -> UtensilRecord? {
        try await all(query).first
    }
}
