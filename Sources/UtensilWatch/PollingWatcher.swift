import Glibc
import UtensilCore

/// Poll mode, for inboxes on network or FUSE file systems where inotify misses remote writes:
/// every `interval` it lists the inbox tree (same folder rules as `InboxWatcher`, at any depth)
/// and reports `.candidate` for each file whose (size, mtime, inode) is new or changed since
/// the previous listing, `.inboxGone`/`.inboxBack` when the inbox disappears and returns, and
/// `.unwatched` when a folder cannot be listed for want of descriptors or memory (once, until
/// a listing is whole again).
///
/// The first listing is taken in `init`, so files already there are not reported: scan them
/// yourself after creating the watcher, as with inotify. After `.inboxBack` rescan as well.
public final class PollingWatcher: InboxEventSource {
    private let thread: WatcherThread
    private let state: Handoff<PollingState>
    private let interval: Duration
    private let bufferLimit: Int

    /// - Throws: `WatchError` if the inbox is not a readable folder now.
    public init(
        inbox: [UInt8],
        skipFolder: @escaping @Sendable ([UInt8]) -> Bool,
        excluded: Set<FolderIdentity> = [],
        interval: Duration,
        bufferLimit: Int = 4096
    ) throws(WatchError) {
        let walker = FolderWalker(skipFolder: skipFolder, excluded: excluded)
        let inbox = RawPath(bytes: inbox).normalized.bytes
        if let problem = InboxCheck.problem(with: inbox) { throw problem }
        guard let first = TreeSnapshot.take(of: inbox, walker: walker) else {
            throw .inboxUnreadable(path: inbox, errno: EACCES)
        }
        self.thread = try WatcherThread()
        self.state = Handoff(PollingState(inbox: inbox, walker: walker, previous: first))
        self.interval = interval
        self.bufferLimit = bufferLimit
    }

    public func events() -> AsyncStream<WatchEvent> {
        let interval = interval
        let started = thread.start(name: "utensil-poll", bufferLimit: bufferLimit) { [state] thread, outlet in
            guard var state = state.take() else { return }
            while !outlet.consumerGone {
                let wait = outlet.backlog.isEmpty ? interval : min(interval, .milliseconds(50))
                if thread.wait(for: nil, timeout: wait) == .stop { return }
                outlet.send(state.pass())
                outlet.flush()
            }
        }
        return started ?? AsyncStream { $0.finish() }
    }

    public func stop() {
        if thread.stop() { _ = state.take() }
    }

    /// Returns once the polling thread has ended.
    func waitForThreadExit() async { await thread.waitForExit() }
}

/// The polling thread's memory between passes.
struct PollingState {
    let inbox: [UInt8]
    let walker: FolderWalker
    /// The last listing; `nil` while the inbox is gone.
    var previous: TreeSnapshot?
    /// Whether the listings have been incomplete since that was last reported.
    var unlistedReported = false

    /// One listing, compared with the previous one.
    mutating func pass() -> [WatchEvent] {
        report(listing: TreeSnapshot.take(of: inbox, walker: walker))
    }

    /// What changed with `current`, the listing just taken.
    mutating func report(listing current: TreeSnapshot?) -> [WatchEvent] {
        defer { previous = current }
        switch (previous, current) {
        case (nil, nil): return []
        case (.some, nil): return [.inboxGone]
        case (nil, .some): return [.inboxBack]
        case (.some(let before), .some(let now)):
            var events: [WatchEvent] = []
            if let problem = now.unlisted, !unlistedReported { events.append(.unwatched(problem)) }
            unlistedReported = now.unlisted != nil
            return events + now.changes(since: before).map { .candidate(path: $0) }
        }
    }
}
