import Logging
import PostgresNIO

/// One transaction on one connection: `BEGIN`, the body, `COMMIT`; when the body fails,
/// `ROLLBACK` — but only on a session that goes on.
///
/// postgres-nio's own `withTransaction` always sends `ROLLBACK` after a failed body. When the
/// failure is the server ending the session (a FATAL error such as 57P01 "terminating
/// connection due to administrator command", sent on a restart or a `pg_terminate_backend`)
/// or the connection breaking, that `ROLLBACK` goes out while the connection is closing, and
/// postgres-nio 1.33 may then never answer it: the call, and whoever waits for it (a drop, a
/// control command, the daemon's shutdown), hangs for ever. The server itself rolls back
/// the transaction of a session that ended, so none is sent then. A `ROLLBACK` that fails on
/// a session that went on closes the connection, so that the pool never hands out a
/// connection left inside a transaction.
enum PostgresTransaction {
    static func run<T>(
        on connection: PostgresConnection, logger: Logger, _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await connection.query("BEGIN", logger: logger)
        let value: T
        do {
            value = try await body(connection)
        } catch {
            guard !PostgresFailure.endsTheSession(error), !connection.isClosed else { throw error }
            do {
                try await connection.query("ROLLBACK", logger: logger)
            } catch let rollbackError {
                logger.warning("PostgreSQL: ROLLBACK failed (\(String(reflecting: rollbackError))); closing that connection")
                try? await connection.close()  // The pool replaces it; the error that matters is `error`.
            }
            throw error
        }
        try await connection.query("COMMIT", logger: logger)
        return value
    }
}
