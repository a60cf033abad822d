import Foundation
import PostgresNIO
import Synchronization
import Testing
import UtensilCatalogSQLite
import UtensilCatalogModel
import UtensilCatalogPostgres
import UtensilTestSupport

/// ``PostgresChangeFeed`` on a real PostgreSQL: two hosts' feeds on one server, each
/// receiving the other's changes and never its own.
@Suite(.tags(.spawnsProcesses)) struct PostgresChangeFeedTests {
    @Test func aChangeOneHostPublishesReachesTheOtherAndNotItself() async throws {
        let server = try PostgresServer()
        defer { server.remove() }
        try await server.withRunningCatalog { settings, catalog, group in
            let a = Follower(PostgresChangeFeed(catalog: catalog, settings: settings, host: "kitchen-a"))
            let b = Follower(PostgresChangeFeed(catalog: catalog, settings: settings, host: "kitchen-b"))
            for follower in [a, b] { group.addTask { try await follower.run() } }
            try await Poll.eventually(seconds: 30, "both feeds listening") { a.isListening && b.isListening }

            // A's change is committed before B's (B sends only once it has A's), and
            // PostgreSQL delivers in commit order: had A been handed its own, it would have it
            // before B's.
            try await a.feed.publish(#"{"kind":"ingested","name":"Ladle ✓"}"#)
            try await Poll.eventually(seconds: 30, "kitchen-b receiving kitchen-a's change") { !b.received.isEmpty }
            try await b.feed.publish("second\nline")
            try await Poll.eventually(seconds: 30, "kitchen-a receiving kitchen-b's change") { !a.received.isEmpty }
            #expect(a.received == [CatalogChange(host: "kitchen-b", payload: "second\nline")])
            #expect(b.received == [CatalogChange(host: "kitchen-a", payload: #"{"kind":"ingested","name":"Ladle ✓"}"#)])
        }
    }

    @Test func aChangeTooLargeForPostgreSQLIsRefusedAndNotSent() async throws {
        let server = try PostgresServer()
        defer { server.remove() }
        try await server.withRunningCatalog { settings, catalog, group in
            let feed = PostgresChangeFeed(catalog: catalog, settings: settings, host: "kitchen-a")
            let payload = String(repeating: "x", count: PostgresChangeFeed.maximumBytes)
            await #expect(throws: CatalogChangeFeedError.tooLarge(bytes: "kitchen-a\n".utf8.count + payload.count, limit: 7999)) {
                try await feed.publish(payload)
            }
            // The largest that fits is sent.
            try await feed.publish(String(payload.dropFirst("kitchen-a\n".utf8.count)))
        }
    }

    /// A server that stops answering without closing the connection (as behind a network cut
    /// without a reset; here its backend process is stopped with SIGSTOP): the liveness check
    /// closes the connection, and following ends as unavailable instead of waiting for ever.
    @Test func aListenConnectionThatStopsAnsweringCountsAsLost() async throws {
        let server = try PostgresServer()
        defer { server.remove() }
        let settings = server.settings()
        _ = try await PostgresMigrator.migrate(settings: settings, logger: quietLogger)
        // The pool is never run: the feed's own connection is the role's only session.
        let client = PostgresClient(configuration: settings.clientConfiguration, backgroundLogger: quietLogger)
        let catalog = PostgresCatalog(client: client, snapshotWriter: SQLiteSnapshotWriter(), logger: quietLogger)
        let follower = Follower(PostgresChangeFeed(
            catalog: catalog, settings: settings, host: "kitchen-a", checkEvery: .milliseconds(200), checkTimeout: .seconds(2)))
        async let outcome = follower.outcome()
        try await Poll.eventually(seconds: 30, "the feed listening") { follower.isListening }
        let sessions = try server.superuserSQL(
            "SELECT pid FROM pg_stat_activity WHERE usename = '\(server.role)'", database: server.database)
        let backend = try #require(Int32(sessions), "sessions: \(sessions)")
        #expect(kill(backend, SIGSTOP) == 0)
        defer { kill(backend, SIGCONT) }
        switch await outcome {
        case .unavailable?: break
        case let other: Issue.record("following a server that stopped answering ended with \(String(describing: other))")
        }
    }

    @Test func followingAnUnreachableCatalogIsUnavailable() async throws {
        let server = try PostgresServer()
        let settings = server.settings()
        _ = try await PostgresMigrator.migrate(settings: settings, logger: quietLogger)
        server.remove()
        let client = PostgresClient(configuration: settings.clientConfiguration, backgroundLogger: quietLogger)
        let catalog = PostgresCatalog(client: client, snapshotWriter: SQLiteSnapshotWriter(), logger: quietLogger)
        let feed = PostgresChangeFeed(catalog: catalog, settings: settings, host: "kitchen-a")
        do {
            try await feed.follow(listening: {}, receive: { _ in })
            Issue.record("following a stopped server returned")
        } catch {
            guard case .unavailable = error else { Issue.record("\(error) is not unavailable"); return }
        }
    }
}

/// One host following a feed, keeping what it received.
private final class Follower: Sendable {
    let feed: PostgresChangeFeed
    private let state = Mutex<(listening: Bool, received: [CatalogChange])>((false, []))

    init(_ feed: PostgresChangeFeed) { self.feed = feed }

    var isListening: Bool { state.withLock { $0.listening } }
    var received: [CatalogChange] { state.withLock { $0.received } }

    func run() async throws(CatalogChangeFeedError) {
        try await feed.follow(
            listening: { state.withLock { $0.listening = true } },
            receive: { change in state.withLock { $0.received.append(change) } })
    }

    /// How following ended: nil when it returned.
    func outcome() async -> CatalogChangeFeedError? {
        do {
            try await run()
            return nil
        } catch {
            return error
        }
    }
}
