import UtensilCatalogPostgres
import UtensilConfig
import UtensilIngest

/// The exit status of a daemon (or `--oneshot`, or `restore`) that could not start: 78 (`EX_CONFIG`) when a
/// person must change something first, so that the unit's `RestartPreventExitStatus=78`
/// stops systemd from starting it again and again; 1 for what may mend itself.
enum StartFailure {
    static let needsAPerson: Int32 = 78
    static let other: Int32 = 1

    /// 78 for a PostgreSQL catalog that refuses this host for good (authentication, role,
    /// database, rights, TLS, a schema migrated by a newer utensild: see
    /// ``PostgresCatalogProblem/needsAPerson``), a catalog password that cannot be read, and a
    /// state folder (or `host_name`) another utensild holds; 1 for anything else.
    static func exitCode(for error: any Error) -> Int32 {
        exitCode(for: error, oneShot: false)
    }

    /// ``exitCode(for:)`` of a daemon, or of `--oneshot` (`oneShot`), for which a state folder
    /// another utensild holds is 1: a run someone waits for, whose turn comes once the other
    /// ends, with no systemd to keep from restarting it.
    static func exitCode(for error: any Error, oneShot: Bool) -> Int32 {
        if oneShot, case StateLockError.held = error { return other }
        return switch error {
        case let problem as PostgresCatalogProblem: problem.needsAPerson ? needsAPerson : other
        case is CatalogPasswordError: needsAPerson
        case StateLockError.held: needsAPerson
        default: other
        }
    }
}
