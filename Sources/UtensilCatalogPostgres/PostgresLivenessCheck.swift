import Logging
import PostgresNIO

/// Tells a connection that only listens (and so never sends anything itself) from one whose
/// server or network has silently gone away: a network cut without a reset leaves the socket
/// open, and a `LISTEN` would wait for notifications forever.
///
/// Every ``interval`` it asks `SELECT 1`; when no answer comes within ``timeout`` (or the
/// question fails), it closes the connection, which ends the listening on it.
struct PostgresLivenessCheck: Sendable {
    var interval: Duration
    var timeout: Duration

    /// Runs until the connection is found dead (then closed) or the task is cancelled.
    func watch(_ connection: PostgresConnection, logger: Logger) async {
        while true {
            do { try await Task.sleep(for: interval) } catch { return }
            guard await answers(connection, logger: logger) else {
                logger.debug("The catalog's connection for LISTEN did not answer; closing it")
                try? await connection.close()
                return
            }
        }
    }

    /// Whether `SELECT 1` is answered within ``timeout``. On a timeout the connection is
    /// closed, so that the question waiting on it ends too.
    private func answers(_ connection: PostgresConnection, logger: Logger) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                do {
                    for try await _ in try await connection.query("SELECT 1", logger: logger) {}
                    return true
                } catch {
                    return false
                }
            }
            group.addTask { [timeout] in
                do { try await Task.sleep(for: timeout) } catch { return true }
                try? await connection.close()
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }
}
