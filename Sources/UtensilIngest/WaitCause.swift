import UtensilStore

/// What a drop left for a retry can wait for besides its back-off: a resource whose return has
/// every drop that waited for it retried at once, and whose outage the journal tells once.
public enum WaitCause: Sendable, Hashable, CaseIterable {
    /// The catalog could not answer (PostgreSQL stopped or restarting, a SQLite file locked).
    case catalog
    /// The storage (a bucket) did not answer.
    case storage

    /// What a drop left for a retry for this kind of failure waits for; nil when it waits only
    /// for its back-off (a full disk, a file still changing, another host's claim).
    public init?(_ kind: TransientFailure.Kind) {
        switch kind {
        case .catalogUnavailable: self = .catalog
        case .storageUnavailable: self = .storage
        case .diskFull, .ioError, .stillChanging, .takenByAnotherHost: return nil
        }
    }
}
