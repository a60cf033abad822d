import Foundation
import PostgresNIO
import Testing
import UtensilCatalogPostgres
import UtensilTestSupport

/// Migrations against a real server: applied once whoever starts first, and the schema keeps
/// the SQLite catalog's rules (claims unique among rows that have them, counts kept by trigger).
@Suite(.tags(.spawnsProcesses)) struct PostgresMigratorTests {
    @Test func clientsMigratingAtOnceApplyEachMigrationExactlyOnce() async throws {
        let server = try PostgresServer()
        defer { server.remove() }
        let settings = server.settings()
        let results = try await withThrowingTaskGroup(of: [String].self) { group in
            for _ in 0..<4 {
                group.addTask { try await PostgresMigrator.migrate(settings: settings, logger: quietLogger) }
            }
            return try await group.reduce(into: [[String]]()) { $0.append($1) }
        }
        let names = PostgresSchema.migrations.map(\.name)
        #expect(results.filter { !$0.isEmpty } == [names], "\(results)")
        #expect(results.filter(\.isEmpty).count == 3)
        let recorded = try server.superuserSQL("SELECT name FROM utensild_migrations ORDER BY name", database: server.database)
        #expect(recorded.split(separator: "\n").map(String.init) == names.sorted())
        #expect(try await PostgresMigrator.migrate(settings: settings, logger: quietLogger) == [])
    }

    @Test func twoProcessesMigratingAtOnceApplyEachMigrationExactlyOnce() async throws {
        // psql sessions stand for two hosts: each takes the advisory lock, as the migrator does,
        // so the migrator in this process waits behind one holding it.
        let server = try PostgresServer()
        defer { server.remove() }
        try server.superuserSQL("SELECT 1", database: server.database)
        let holder = try server.holdAdvisoryLock(PostgresMigrator.lockKey, database: server.database)
        let settings = server.settings()
        async let migrated = PostgresMigrator.migrate(settings: settings, logger: quietLogger)
        // The migrator waits for the lock; nothing is recorded while it is held.
        try await Poll.eventually(seconds: 30, "the migrator to wait for the advisory lock") {
            (try? server.superuserSQL(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted", database: server.database)) == "1"
        }
        #expect(try server.superuserSQL("SELECT to_regclass('utensild_migrations') IS NULL", database: server.database) == "t")
        holder.release()
        #expect(try await migrated == PostgresSchema.migrations.map(\.name))
    }

    @Test func claimsAreUniqueAmongRowsThatHaveThemAndCountsFollowTheRows() async throws {
        let server = try PostgresServer()
        defer { server.remove() }
        _ = try await PostgresMigrator.migrate(settings: server.settings(), logger: quietLogger)
        func insert(_ name: String, claim: String?, content: String?, source: String?, category: String? = nil) -> String {
            let quoted = { (value: String?) in value.map { "'\($0)'" } ?? "NULL" }
            return """
                INSERT INTO utensils (id, name, name_key, search_key, extension, created_at, width, height, bytes, sha256,
                    source_key, name_claim, content_claim, category, category_key, sort_key, host)
                VALUES (gen_random_uuid(), '\(name)', '\(name.lowercased())', '\(name.lowercased())', 'jpg', now(), 1, 1, 1,
                    'sha-\(name)', \(quoted(source)), \(quoted(claim)), \(quoted(content)), \(quoted(category)),
                    \(quoted(category?.lowercased())), '\(name.lowercased())', 'kitchen-1')
                """
        }
        let db = server.database
        try server.superuserSQL(insert("Spoon", claim: "spoon", content: "c1", source: "s1", category: "Cutlery"), database: db)
        try server.superuserSQL(insert("spoon", claim: nil, content: nil, source: nil, category: "cutlery"), database: db)
        try server.superuserSQL(insert("SPOON", claim: nil, content: nil, source: nil), database: db)
        for (row, index) in [
            (insert("Spoon", claim: "spoon", content: "c9", source: "s9"), "utensils_name_claim"),
            (insert("Fork", claim: "fork", content: "c1", source: "s8"), "utensils_content_claim"),
            (insert("Knife", claim: "knife", content: "c7", source: "s1"), "utensils_source_key"),
        ] {
            #expect(throws: (any Error).self) { try server.superuserSQL(row, database: db) }
            do { try server.superuserSQL(row, database: db) } catch { #expect("\(error)".contains(index), "\(error)") }
        }
        #expect(try server.superuserSQL("SELECT utensils FROM utensil_count", database: db) == "3")
        #expect(try server.superuserSQL("SELECT category || '=' || utensils FROM category_counts", database: db) == "Cutlery=2")
        try server.superuserSQL("UPDATE utensils SET trashed_at = now() WHERE name = 'Spoon'", database: db)
        #expect(try server.superuserSQL("SELECT utensils FROM utensil_count", database: db) == "2")
        #expect(try server.superuserSQL("SELECT category || '=' || utensils FROM category_counts", database: db) == "Cutlery=1")
        try server.superuserSQL("UPDATE utensils SET category = NULL, category_key = NULL WHERE name = 'spoon'", database: db)
        #expect(try server.superuserSQL("SELECT count(*) FROM category_counts", database: db) == "0")
        try server.superuserSQL("DELETE FROM utensils", database: db)
        #expect(try server.superuserSQL("SELECT utensils FROM utensil_count", database: db) == "0")
        // The folded search key has a trigram index: pg_trgm is there.
        #expect(try server.superuserSQL("SELECT count(*) FROM pg_extension WHERE extname = 'pg_trgm'", database: db) == "1")
    }
}
