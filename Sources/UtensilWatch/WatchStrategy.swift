/// How the inbox is watched.
public enum WatchStrategy: Sendable, Equatable {
    case inotify
    /// Poll, and why (for the log).
    case poll(reason: String)
}

/// Turns the `watch` setting into a strategy.
public enum WatchStrategyResolver {
    /// `"inotify"` and `"poll"` are obeyed as they are; `"auto"` (and anything else — the
    /// configuration is validated elsewhere) polls where `statfs` shows a network, cluster or
    /// FUSE file system, and uses inotify elsewhere. Case-insensitive.
    public static func resolve(requested: String, inbox: [UInt8]) -> WatchStrategy {
        switch requested.lowercased() {
        case "inotify":
            return .inotify
        case "poll":
            return .poll(reason: "watch = \"poll\" is configured")
        default:
            guard FileSystemKind.isRemoteOrFUSE(inbox) else { return .inotify }
            let kind = FileSystemKind.name(of: inbox) ?? "a remote file system"
            return .poll(reason: "the inbox is on \(kind), a network or FUSE file system where "
                + "inotify does not see writes made elsewhere")
        }
    }
}

extension WatchStrategy {
    /// Creates the matching event source: an `InboxWatcher` or a `PollingWatcher` that lists
    /// the tree every `pollInterval` (the contract uses `settle_seconds`).
    public func makeEventSource(
        inbox: [UInt8],
        skipFolder: @escaping @Sendable ([UInt8]) -> Bool,
        excluded: Set<FolderIdentity> = [],
        pollInterval: Duration
    ) throws(WatchError) -> any InboxEventSource {
        switch self {
        case .inotify:
            return try InboxWatcher(inbox: inbox, skipFolder: skipFolder, excluded: excluded)
        case .poll:
            return try PollingWatcher(
                inbox: inbox, skipFolder: skipFolder, excluded: excluded, interval: pollInterval)
        }
    }
}
