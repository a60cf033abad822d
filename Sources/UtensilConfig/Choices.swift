/// What to do with a drop that duplicates an existing utensil (by name or by content).
public enum DuplicatePolicy: String, Sendable, Codable, CaseIterable {
    /// Reject the drop (`duplicate-name` or `duplicate-content`).
    case reject
    /// Ingest it anyway.
    case allow
}

/// What to do with a drop named like an existing utensil (`duplicate_names`).
public enum DuplicateNamePolicy: String, Sendable, Codable, CaseIterable {
    /// Reject the drop (`duplicate-name`).
    case reject
    /// Ingest it as another utensil of the same name.
    case allow
    /// Replace the existing utensil's photo (same id, name and `createdAt`; `updatedAt` set).
    case replace
}

/// What to do with a drop whose photo looks like a copy of an existing utensil's
/// (`near_duplicates`): re-encoded, resized, converted, rotated or slightly cropped.
public enum NearDuplicatePolicy: String, Sendable, Codable, CaseIterable {
    /// Ingest it, recording which utensil it resembles (`nearDuplicateOf`).
    case warn
    /// Reject the drop (`near-duplicate`).
    case reject
    /// Neither look for nor record look-alikes.
    case off
}

/// How the inbox is watched.
public enum WatchMode: String, Sendable, Codable, CaseIterable {
    /// Kernel notifications only.
    case inotify
    /// Periodic listing every `settle_seconds`.
    case poll
    /// `poll` where `statfs` shows a network or FUSE filesystem (inotify sees no remote writes), else `inotify`.
    case auto
}

/// How the daemon writes its log (`log_format`).
public enum LogFormat: String, Sendable, Codable, CaseIterable {
    /// journald's native protocol when journald is there, else plain lines on stderr.
    case auto
    /// One plain text line per entry on stderr.
    case plain
    /// One JSON object per line on stderr, with the journal's field names as keys.
    case json
}

/// The least severe log level that is emitted.
public enum LogLevelName: String, Sendable, Codable, CaseIterable {
    case trace, debug, info, notice, warning, error, critical
}
