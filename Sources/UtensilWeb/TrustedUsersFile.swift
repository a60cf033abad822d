import Logging
import Synchronization
import UtensilWebUsers

/// The web users file as the gallery reads it at each sign-in and signed-in request: only
/// while nobody but root and the daemon's user can change it
/// (``WebUsersFile/readTrusted(_:daemonUser:)``). An untrusted file signs nobody in, and
/// the reason is logged once (again only after it changed).
final class TrustedUsersFile: Sendable {
    let path: String
    private let logger: Logger
    private let lastProblem = Mutex<UntrustedUsersFile?>(nil)

    init(path: String, logger: Logger) {
        self.path = path
        self.logger = logger
    }

    /// The users, or the reason none may sign in.
    func read() -> Result<WebUsersFile, UntrustedUsersFile> {
        let result = Result { () throws(UntrustedUsersFile) in try WebUsersFile.readTrusted(path) }
        let problem: UntrustedUsersFile? = if case .failure(let problem) = result { problem } else { nil }
        let changed = lastProblem.withLock { last in
            defer { last = problem }
            return last != problem
        }
        if changed, let problem { logger.error("\(problem)") }
        return result
    }

    /// The users, or nil when none may sign in.
    var users: WebUsersFile? { try? read().get() }
}
