/// The journald fields utensild writes beside `MESSAGE`, named once: each field's name is its
/// case's, in capitals with underscores (`utensilAddedBy` is `UTENSIL_ADDED_BY`; the contract
/// lists the `UTENSIL_*`, `INBOX_FILE`, `REJECT_REASON` and `DURATION_MS` ones).
public enum JournalField: Sendable, CaseIterable, RawRepresentable {
    case messageID
    case utensilID
    case utensilName
    case utensilCategory
    case utensilAddedBy
    case inboxFile
    case rejectReason
    case durationMS
    /// Where a rejected drop went in `rejected/` (its name there).
    case rejectedAs
    /// Why a drop was left for a retry (`RetryReason`).
    case retryReason
    /// The drop a decoder crash was recorded for (the crash guard's key).
    case sourceKey
    /// Which step of start-up recovery stopped on an error (``MessageID/recoveryLeft``):
    /// `staging`, `older-staging` or `decoder-crashes`.
    case recoveryStep
    /// How many utensils the trash purger deleted for good.
    case purgedCount
    /// The uid of the control-socket peer a change was made for.
    case peerUID
    /// The pid of that peer.
    case peerPID
    /// The user a change was made for: the control-socket peer's Unix user name (its uid when
    /// it has no passwd entry), or the web gallery's signed-in user.
    case changedBy
    /// Which door the change came through: `control-socket` or `web`.
    case changedVia
    /// Which ingest hook: `on_ingest` or `on_reject`.
    case hook
    /// The hook's program (its absolute path).
    case hookProgram
    /// The first bytes of what the hook printed (standard output and error together).
    case hookOutput
    /// How many bytes the hook printed in all (more than `HOOK_OUTPUT` holds when it was cut).
    case hookOutputBytes
    /// How the hook ended: `exit 1`, `signal 9`, `timeout`, `not started` …
    case hookEnd

    /// The field's name in the journal.
    public var rawValue: String { CaseSpelling.screamingSnake(self) }

    public init?(rawValue: String) {
        guard let field = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = field
    }
}
