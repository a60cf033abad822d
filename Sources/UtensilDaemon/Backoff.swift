/// How long a drop left for a retry waits: 5 s, 10 s, 20 s … at most 5 minutes (or `longest`).
enum Backoff {
    static func delay(afterAttempt attempt: Int, longest: Duration = .seconds(300)) -> Duration {
        let seconds = min(300, 5 << min(max(attempt - 1, 0), 6))
        return min(.seconds(seconds), longest)
    }
}
