/// Waits for a condition by checking it again and again until a deadline: the tests' only way
/// to wait for another process.
enum Deadline {
    /// The first non-nil result of `attempt`, or nil once `timeout` has passed.
    static func poll<Result>(
        timeout: Duration, every interval: Duration = .milliseconds(50), _ attempt: () async throws -> Result?
    ) async rethrows -> Result? {
        let clock = ContinuousClock()
        let end = clock.now + timeout
        while true {
            if let result = try await attempt() { return result }
            if clock.now >= end { return nil }
            try? await Task.sleep(for: interval)
        }
    }

    /// Whether `condition` became true before `timeout` passed.
    static func poll(
        timeout: Duration, every interval: Duration = .milliseconds(50), _ condition: () async throws -> Bool
    ) async rethrows -> Bool {
        try await poll(timeout: timeout, every: interval) { try await condition() ? true : nil } ?? false
    }
}
