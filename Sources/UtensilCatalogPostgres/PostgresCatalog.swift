import Foundation
import Logging
import PostgresNIO
import UtensilCatalogModel

/// The PostgreSQL catalog: ``CatalogBackend`` over a `PostgresClient`, for several hosts
/// sharing one catalog.
///
/// The schema is ``PostgresSchema``'s (applied by ``PostgresMigrator`` before this is made).
/// Every call is one statement, or one transaction when it changes several rows; values are
/// always bound parameters. Refusals are told apart by SQLSTATE 23505 and the name of the
/// unique index hit (`utensils_name_claim`, `utensils_content_claim`, `utensils_source_key`);
/// a deadlock or serialization failure (40P01, 40001) is retried a few times; a server that
/// cannot be reached or cannot serve is ``CatalogError/unavailable(code:detail:)``.
///
/// The pool must be running (``PostgresPool/run()``, or the caller's client) while the
/// catalog is used.
public struct PostgresCatalog: CatalogBackend, CatalogPoolReporting {
    let pool: PostgresPool
    let logger: Logger
    let snapshotWriter: any CatalogSnapshotWriter
    let leaseDeadline: PostgresLeaseDeadline
    let answerDeadline: PostgresAnswerDeadline
    let searchPlan: PostgresSearchPlan

    /// - Parameters:
    ///   - client: the pool of connections to the migrated catalog database (the caller runs it).
    ///   - snapshotWriter: writes a ``snapshot()`` out as a SQLite file (the SQLite backend's
    ///     `SQLiteSnapshotWriter`: only that target touches SQLite).
    ///   - leaseSeconds: how long a call waits for a connection before the catalog counts as
    ///     unavailable (see ``PostgresLeaseDeadline``).
    ///   - answerSeconds: how long a call may run on its connection before it is given up and
    ///     the catalog counts as unavailable (see ``PostgresAnswerDeadline``); the snapshot, a
    ///     load and the integrity check are not bounded.
    ///   - searchPlan: when a search walks the listing order and when it gathers its matches.
    public init(
        client: PostgresClient, snapshotWriter: any CatalogSnapshotWriter, logger: Logger, leaseSeconds: Int64 = 10,
        answerSeconds: Int64 = PostgresCatalog.answerSeconds, searchPlan: PostgresSearchPlan = .standard
    ) {
        self.init(
            pool: PostgresPool(client: client, logger: logger), snapshotWriter: snapshotWriter, logger: logger,
            leaseSeconds: leaseSeconds, answerSeconds: answerSeconds, searchPlan: searchPlan)
    }

    /// The catalog over `pool` (renewed after an outage: see ``PostgresPool``); the other
    /// parameters as for ``init(client:snapshotWriter:logger:leaseSeconds:answerSeconds:searchPlan:)``.
    public init(
        pool: PostgresPool, snapshotWriter: any CatalogSnapshotWriter, logger: Logger, leaseSeconds: Int64 = 10,
        answerSeconds: Int64 = PostgresCatalog.answerSeconds, searchPlan: PostgresSearchPlan = .standard
    ) {
        self.pool = pool
        self.searchPlan = searchPlan
        self.snapshotWriter = snapshotWriter
        self.logger = logger
        self.leaseDeadline = PostgresLeaseDeadline(seconds: leaseSeconds)
        self.answerDeadline = PostgresAnswerDeadline(seconds: answerSeconds)
    }

    /// How long a call may run on its connection, by default, before it is given up
    /// (``PostgresAnswerDeadline``): far longer than any of a daemon's calls takes on a server
    /// that answers, short enough that a drop whose call was lost is retried within a minute.
    public static let answerSeconds: Int64 = 60

    public var poolReading: CatalogPoolReading { pool.reading }

    /// How many times a call hit by a deadlock or serialization failure is tried in all.
    static let attempts = 5

    // MARK: Plumbing

    /// Runs `body` on a leased connection, retrying deadlocks; maps every failure to ``CatalogError``.
    func read<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws(CatalogError) -> T {
        try await retrying { [pool, leaseDeadline, answerDeadline] in
            let generation = pool.generation
            return try await answerDeadline.run { watch in
                try await leaseDeadline.run(renewed: { pool.generation != generation }) { leased in
                    try await pool.withConnection { connection in
                        leased()
                        watch.leased(connection)
                        return try await PostgresSession.run(on: connection) { try await body(connection) }
                    }
                }
            }
        }
    }

    /// Runs `body` in one transaction (READ COMMITTED), retrying it whole after a deadlock or
    /// serialization failure; maps every failure to ``CatalogError``. `unbounded`: no answer
    /// deadline (a transaction whose time grows with the catalog).
    func transaction<T: Sendable>(
        unbounded: Bool = false, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws(CatalogError) -> T {
        let answerDeadline = unbounded ? PostgresAnswerDeadline.none : answerDeadline
        return try await retrying { [pool, leaseDeadline, logger] in
            let generation = pool.generation
            return try await answerDeadline.run { watch in
                try await leaseDeadline.run(renewed: { pool.generation != generation }) { leased in
                    try await pool.withConnection { connection in
                        leased()
                        watch.leased(connection)
                        return try await PostgresSession.run(on: connection) {
                            try await PostgresTransaction.run(on: connection, logger: logger, body)
                        }
                    }
                }
            }
        }
    }

    private func retrying<T: Sendable>(_ body: () async throws -> T) async throws(CatalogError) -> T {
        var attempt = 1
        while true {
            do {
                return try await body()
            } catch {
                if attempt < Self.attempts, PostgresFailure.isRetryable(error) || error is PostgresSession.Stale {
                    attempt += 1
                    continue
                }
                throw PostgresFailure.catalogError(error)
            }
        }
    }

    /// Every row of `query` as a utensil (the query selects ``UtensilColumns/list`` first).
    static func utensils(_ query: PostgresQuery, on connection: PostgresConnection, logger: Logger) async throws -> [UtensilRecord] {
        var records: [UtensilRecord] = []
        for try await row in try await connection.query(query, logger: logger) {
            records.append(try UtensilColumns.record(row.makeRandomAccess()))
        }
        return records
    }

    /// The first row of `query` as a utensil, or nil.
    static func utensil(_ query: PostgresQuery, on connection: PostgresConnection, logger: Logger) async throws -> UtensilRecord? {
        try await utensils(query, on: connection, logger: logger).first
    }

    /// The single value of the first row of `query`, or nil when it has no row.
    static func value<T: PostgresDecodable & Sendable>(
        _ type: T.Type, _ query: PostgresQuery, on connection: PostgresConnection, logger: Logger
    ) async throws -> T? {
        for try await (value) in try await connection.query(query, logger: logger).decode(T.self) { return value }
        return nil
    }
}
