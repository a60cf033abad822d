import PostgresNIO

/// A call's use of a leased connection, so that a session the server ended is never handed
/// out again.
///
/// When the server ends a session (a restart, `pg_terminate_backend`) or the connection
/// breaks, postgres-nio's pool learns of it only a moment later; a connection released in
/// between could be leased again and fail the next call. So a connection whose session ended
/// under a call is closed before it goes back to the pool, and a connection that is already
/// closed when leased is refused with ``Stale`` before anything is sent on it: nothing ran,
/// and the caller tries again on another connection.
enum PostgresSession {
    /// A leased connection that was already closed, or a pool replaced while the call waited
    /// for a connection: nothing was sent; safe to try again.
    struct Stale: Error {}

    static func run<T>(on connection: PostgresConnection, _ body: () async throws -> T) async throws -> T {
        guard !connection.isClosed else { throw Stale() }
        do {
            return try await body()
        } catch {
            if PostgresFailure.endsTheSession(error) {
                try? await connection.close()  // Only to keep it from the pool; `error` is what the caller sees.
            }
            throw error
        }
    }
}
