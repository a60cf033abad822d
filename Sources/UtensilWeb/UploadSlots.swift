import Synchronization

/// Admits uploads against ``UploadLimits``: at most ``UploadLimits/perUser`` in progress for
/// one signed-in user and ``UploadLimits/inAll`` for everyone; past either the upload is
/// refused before a byte of its body is read.
final class UploadSlots: Sendable {
    let limits: UploadLimits
    private let state = Mutex<(inAll: Int, perUser: [String: Int])>((0, [:]))

    init(limits: UploadLimits) { self.limits = limits }

    /// Runs `upload` in a slot of `user`'s, given back when it ends however it ends; past a
    /// limit throws the `429` (the user's) or `503` (everyone's) saying when to try again.
    func withSlot<T>(for user: String, _ upload: () async throws -> T) async throws -> T {
        try take(user)
        defer { release(user) }
        return try await upload()
    }

    /// Uploads in progress now (for tests).
    var inProgress: Int { state.withLock { $0.inAll } }

    private func take(_ user: String) throws(WebProblem) {
        let refusal = state.withLock { state -> WebProblem? in
            let mine = state.perUser[user, default: 0]
            guard mine < limits.perUser else {
                return WebProblem(.tooManyRequests, .busy,
                    "You have \(limits.perUser) uploads in progress, as many as the gallery takes from one user at once; wait for one to finish and send the next.")
            }
            guard state.inAll < limits.inAll else {
                return WebProblem(.serviceUnavailable, .busy,
                    "The gallery is receiving \(limits.inAll) uploads, as many as it takes at once; try again in \(UploadLimits.retryAfterSeconds) seconds.")
            }
            state.inAll += 1
            state.perUser[user] = mine + 1
            return nil
        }
        if var refusal {
            refusal.headers[.retryAfter] = String(UploadLimits.retryAfterSeconds)
            throw refusal
        }
    }

    private func release(_ user: String) {
        state.withLock { state in
            state.inAll -= 1
            let mine = state.perUser[user, default: 1]
            state.perUser[user] = mine > 1 ? mine - 1 : nil
        }
    }
}
