/// The journald fields utensild writes beside `MESSAGE`, named once (the contract lists the
/// `UTENSIL_*`, `INBOX_FILE`, `REJECT_REASON` and `DURATION_MS` ones).
public enum JournalField: String, Sendable, CaseIterable {
    case messageID = "MESSAGE_ID"
    case utensilID = "UTENSIL_ID"
    case utensilName = "UTENSIL_NAME"
    case utensilCategory = "UTENSIL_CATEGORY"
    case utensilAddedBy = "UTENSIL_ADDED_BY"
    case inboxFile = "INBOX_FILE"
    case rejectReason = "REJECT_REASON"
    case durationMilliseconds = "DURATION_MS"
    /// Where a rejected drop went in `rejected/` (its name there).
    case rejectedAs = "REJECTED_AS"
    /// Why a drop was left for a retry (`RetryReason`).
    case retryReason = "RETRY_REASON"
    /// The drop a decoder crash was recorded for (the crash guard's key).
    case sourceKey = "SOURCE_KEY"
    /// Which step of start-up recovery stopped on an error (``MessageID/recoveryLeft``):
    /// `staging`, `older-staging` or `decoder-crashes`.
    case recoveryStep = "RECOVERY_STEP"
    /// How many utensils the trash purger deleted for good.
    case purgedCount = "PURGED_COUNT"
    /// The uid of the control-socket peer a change was made for.
    case peerUID = "PEER_UID"
    /// The pid of that peer.
    case peerPID = "PEER_PID"
    /// The user a change was made for: the control-socket peer's Unix user name (its uid when
    /// it has no passwd entry), or the web gallery's signed-in user.
    case changedBy = "CHANGED_BY"
    /// Which door the change came through: `control-socket` or `web`.
    case changedVia = "CHANGED_VIA"
    /// Which ingest hook: `on_ingest` or `on_reject`.
    case hook = "HOOK"
    /// The hook's program (its absolute path).
    case hookProgram = "HOOK_PROGRAM"
    /// The first bytes of what the hook printed (standard output and error together).
    case hookOutput = "HOOK_OUTPUT"
    /// How many bytes the hook printed in all (more than `HOOK_OUTPUT` holds when it was cut).
    case hookOutputBytes = "HOOK_OUTPUT_BYTES"
    /// How the hook ended: `exit 1`, `signal 9`, `timeout`, `not started` …
    case hookEnd = "HOOK_END"
}
