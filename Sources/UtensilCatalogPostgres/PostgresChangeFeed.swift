import Logging
import PostgresNIO
import UtensilCatalogModel

/// The PostgreSQL catalog's ``CatalogChangeFeed``: `LISTEN/NOTIFY` on the channel
/// ``channel``.
///
/// A change is sent with `SELECT pg_notify('utensild_events', $1)` (a bound parameter) on a
/// connection of the catalog's pool, as the text `<host>\n<payload>` (a host name holds no
/// line break). Its transaction commits without waiting for the WAL flush (`synchronous_commit`
/// off for that transaction alone): a notification is never kept across a server crash
/// anyway, and the flush would cost each drop a second wait on the disk. PostgreSQL refuses a notification of 8000 bytes or more, so one that large
/// is not sent (``CatalogChangeFeedError/tooLarge(bytes:limit:)``). ``follow(listening:receive:)``
/// opens one connection of its own (not the pool's: it stays subscribed for as long as the
/// host follows), runs `LISTEN` on it and hands over every other host's change; PostgreSQL
/// delivers each committed notification to every session listening at that moment, in order.
/// That connection is checked every 30 s (``PostgresLivenessCheck``): one that stops answering
/// is closed and counts as lost.
public struct PostgresChangeFeed: CatalogChangeFeed {
    /// The notification channel every utensild of a catalog uses.
    public static let channel = "utensild_events"
    /// PostgreSQL's limit: a notification's text must be shorter than 8000 bytes.
    public static let maximumBytes = 7999

    public let host: String
    let catalog: PostgresCatalog
    let settings: PostgresCatalogSettings
    let liveness: PostgresLivenessCheck

    /// - Parameters:
    ///   - catalog: the catalog whose pool sends this host's changes.
    ///   - settings: where the dedicated connection for `LISTEN` connects.
    ///   - host: this host's `host_name`.
    ///   - checkEvery, checkTimeout: how often the `LISTEN` connection is asked `SELECT 1`, and
    ///     how long an answer may take before the connection counts as lost (a network cut
    ///     without a reset would otherwise leave it waiting for ever).
    public init(
        catalog: PostgresCatalog, settings: PostgresCatalogSettings, host: String,
        checkEvery: Duration = .seconds(30), checkTimeout: Duration = .seconds(10)
    ) {
        self.catalog = catalog
        self.settings = settings
        self.host = host
        liveness = PostgresLivenessCheck(interval: checkEvery, timeout: checkTimeout)
    }

    public func publish(_ payload: String) async throws(CatalogChangeFeedError) {
        let message = "\(host)\n\(payload)"
        let bytes = message.utf8.count
        guard bytes <= Self.maximumBytes else { throw .tooLarge(bytes: bytes, limit: Self.maximumBytes) }
        do {
            try await catalog.read { [logger = catalog.logger] connection -> Void in
                _ = try await connection.query(
                    "SELECT set_config('synchronous_commit', 'off', true), pg_notify(\(Self.channel), \(message))",
                    logger: logger)
            }
        } catch {
            throw .unavailable("\(error)")
        }
    }

    public func follow(
        listening: @Sendable () -> Void, receive: @Sendable (CatalogChange) async -> Void
    ) async throws(CatalogChangeFeedError) {
        let connection: PostgresConnection
        do {
            connection = try await PostgresCatalogCheck.connect(settings, logger: catalog.logger)
        } catch {
            throw .unavailable("\(error)")
        }
        let result: Result<Void, CatalogChangeFeedError>
        do {
            try await connection.listen(on: Self.channel) { notifications in
                listening()
                try await withThrowingTaskGroup(of: Void.self) { group in
                    // Closes the connection once it stops answering, which ends the loop below.
                    group.addTask { [liveness, logger = catalog.logger] in await liveness.watch(connection, logger: logger) }
                    defer { group.cancelAll() }
                    for try await notification in notifications {
                        guard let change = Self.change(notification.payload), change.host != host else { continue }
                        await receive(change)
                    }
                }
            }
            result = Task.isCancelled ? .success(()) : .failure(.unavailable("the connection was closed"))
        } catch {
            result = Task.isCancelled ? .success(()) : .failure(.unavailable("\(PostgresFailure.catalogError(error))"))
        }
        try? await connection.close()
        try result.get()
    }

    /// The change a notification's text carries, or nil for a text no utensild sent.
    static func change(_ text: String) -> CatalogChange? {
        guard let newline = text.firstIndex(of: "\n") else { return nil }
        let host = String(text[..<newline])
        guard !host.isEmpty else { return nil }
        return CatalogChange(host: host, payload: String(text[text.index(after: newline)...]))
    }
}
