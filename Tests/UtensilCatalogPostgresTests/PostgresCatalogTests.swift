import Foundation
import Logging
import PostgresNIO
import Testing
import UtensilCatalogSQLite
import UtensilCatalogModel
import UtensilCatalogPostgres
import UtensilCore
import UtensilTestSupport

/// What the contract suite cannot show of the PostgreSQL catalog: a connection cut in the
/// middle of a call is "unavailable" (the caller retries), leaves nothing half done, and the
/// next call works on a new connection.
@Suite(.tags(.spawnsProcesses)) struct PostgresCatalogTests {
    @Test func aConnectionCutMidCallIsUnavailableAndTheNextCallWorks() async throws {
        let server = try PostgresServer()
        defer { server.remove() }
        try await server.withRunningCatalog { settings, catalog, group in
            let name = try UtensilName(validating: "Spoon")
            let spoon = UtensilRecord(
                id: UUID(), name: name.value, nameKey: name.uniquenessKey, searchKey: name.searchKey, fileExtension: "jpg",
                createdAt: Date(), width: 10, height: 10, bytes: 100, sha256: "abc", sourceKey: "1:2:3:4@a",
                nameClaim: name.uniquenessKey, contentClaim: "abc")
            #expect(try await catalog.insert(batch: [spoon]) == [nil])

            // Another session locks the row, so the catalog's trash waits on it; then the
            // catalog's connection is cut (as a server restart or a network failure would).
            let holder = try await PostgresConnection.connect(
                configuration: settings.connectionConfiguration(), id: 99, logger: quietLogger)
            try await holder.query("BEGIN", logger: quietLogger)
            try await holder.query("SELECT 1 FROM utensils WHERE id = \(spoon.id) FOR UPDATE", logger: quietLogger)
            let trashing = Task { try await catalog.trash(id: spoon.id, at: Date()) }
            let deadline = ContinuousClock.now + .seconds(30)
            while try await Self.waitingBackends(holder) == 0 {
                guard ContinuousClock.now < deadline else { throw TestFailure("the catalog never waited for the row lock") }
                try await Task.sleep(for: .milliseconds(20))
            }
            try await holder.query(
                """
                SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid()
                """, logger: quietLogger)
            switch await trashing.result {
            case .failure(let error as CatalogError):
                guard case .unavailable = error else { Issue.record("\(error) is not unavailable"); break }
            case let outcome:
                Issue.record("the cut call ended with \(outcome), not unavailable")
            }
            try await holder.query("ROLLBACK", logger: quietLogger)
            try await holder.close()

            // Nothing half done; the next call gets a new connection.
            #expect(try await catalog.utensil(id: spoon.id)?.trashedAt == nil)
            #expect(try await catalog.trash(id: spoon.id, at: Date()).trashedAt != nil)
            #expect(try await catalog.count() == 0)
            #expect(try await catalog.integrityCheck() == ["ok"])
        }
    }

    /// Sessions other than `connection`'s waiting for a lock.
    private static func waitingBackends(_ connection: PostgresConnection) async throws -> Int {
        let rows = try await connection.query(
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid()",
            logger: quietLogger)
        for try await (count) in rows.decode(Int.self) { return count }
        return 0
    }
}
