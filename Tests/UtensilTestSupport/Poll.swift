import Foundation
import Glibc

/// Waiting for something a test cannot be told about: polling with a deadline, never a sleep
/// as synchronisation.
public enum Poll {
    /// Polls `predicate` every `interval` microseconds until it holds; after `seconds`, fails
    /// naming `what`, followed by `detail()` (a log, say).
    public static func until(
        seconds: Double = 60, _ what: String, every interval: useconds_t = 50_000,
        detail: () -> String = { "" }, _ predicate: () -> Bool
    ) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !predicate() {
            guard Date() < deadline else {
                let more = detail()
                throw TestFailure("timed out waiting for \(what)" + (more.isEmpty ? "" : "\n" + more))
            }
            usleep(interval)  // Polling with a deadline.
        }
    }

    /// ``until(seconds:_:every:detail:_:)`` for async tests: it suspends between polls rather
    /// than block a thread of the shared pool, which a task the test waits on may need.
    public static func eventually(
        seconds: Double = 60, _ what: String, every interval: Duration = .milliseconds(20),
        detail: () -> String = { "" }, _ predicate: () -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        while !predicate() {
            guard ContinuousClock.now < deadline else {
                let more = detail()
                throw TestFailure("timed out waiting for \(what)" + (more.isEmpty ? "" : "\n" + more))
            }
            try await Task.sleep(for: interval)  // Polling with a deadline.
        }
    }
}
