import Glibc

/// Watches the inbox tree with the kernel's inotify API.
///
/// One dedicated thread blocks in `poll()` on the inotify descriptor and a wake-up socket:
/// zero CPU while idle, no timers. Only while the inbox is gone does it look for it again
/// every `inboxRecheckInterval`. New folders are watched (with everything below them) before
/// `.folderAppeared` is sent. Folders are opened and watched by descriptor beneath the inbox
/// (`FolderWalker`), at any depth and whatever the length of their paths; symlinked folders are
/// never followed; folders `skipFolder` names and `excluded` folders are not watched. Where the
/// watch limit or the descriptors run out, the rest is reported as `.unwatched` and left to
/// the rescans.
public final class InboxWatcher: InboxEventSource {
    private let thread: WatcherThread
    /// The engine until the thread takes it (or `stop()` releases it unused).
    private let engine: Handoff<InotifyEngine>
    private let problems: ProblemLog
    private let inboxRecheckInterval: Duration
    private let bufferLimit: Int
    /// The inotify descriptor (for tests: it must be closed after `stop()`).
    let inotifyDescriptor: Int32

    /// Starts watching `inbox` and every folder below it right away (events are queued by the
    /// kernel until `events()` is called).
    ///
    /// - Parameters:
    ///   - skipFolder: given a folder's name, whether to leave it (and what is below) unwatched.
    ///   - excluded: folders never watched, by identity (e.g. `rejected/` if inside the inbox).
    ///   - inboxRecheckInterval: how often to look for the inbox while it is gone.
    ///   - bufferLimit: events held for a slow consumer; beyond that they collapse into `.overflow`.
    ///   - writers: kept current with the files a writer holds open after writing to them; a
    ///     `.candidate` is reported when such a hold ends.
    /// - Throws: `WatchError` if the inbox is missing or unreadable, or an inotify limit is hit
    ///   before the inbox itself is watched (a limit hit below it is an `.unwatched` event).
    public init(
        inbox: [UInt8],
        skipFolder: @escaping @Sendable ([UInt8]) -> Bool,
        excluded: Set<FolderIdentity> = [],
        inboxRecheckInterval: Duration = .seconds(1),
        bufferLimit: Int = 4096,
        writers: OpenWriters = OpenWriters()
    ) throws(WatchError) {
        let problems = ProblemLog()
        let engine = try InotifyEngine(
            inbox: inbox, skipFolder: skipFolder, excluded: excluded, problems: problems, writers: writers)
        self.thread = try WatcherThread()
        self.problems = problems
        self.inotifyDescriptor = engine.descriptor
        self.engine = Handoff(engine)
        self.inboxRecheckInterval = inboxRecheckInterval
        self.bufferLimit = bufferLimit
    }

    /// The last problem met while running (e.g. the watch limit reached for a new folder,
    /// which was then reported as `.overflow`), for status displays.
    public var lastError: WatchError? { problems.latest }

    public func events() -> AsyncStream<WatchEvent> {
        let recheck = inboxRecheckInterval
        let started = thread.start(name: "utensil-inotify", bufferLimit: bufferLimit) { [engine] thread, outlet in
            guard let engine = engine.take() else { return }
            Self.run(engine, thread: thread, outlet: &outlet, recheck: recheck)
        }
        return started ?? AsyncStream { $0.finish() }
    }

    public func stop() {
        if thread.stop() {
            _ = engine.take()  // never started: close the descriptor now
        }
    }

    /// Returns once the watching thread has ended (for tests and orderly shutdown).
    func waitForThreadExit() async { await thread.waitForExit() }

    // MARK: The thread

    private static let readSize = 64 * 1024
    private static let maxReadsPerBatch = 8
    private static let backlogRetry = Duration.milliseconds(50)

    private static func run(_ engine: InotifyEngine, thread: WatcherThread, outlet: inout EventOutlet, recheck: Duration) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: readSize, alignment: 8)
        defer { buffer.deallocate() }
        outlet.send(engine.takeStartProblem())
        while !outlet.consumerGone {
            let timeout: Duration? = !outlet.backlog.isEmpty ? backlogRetry : (engine.inboxIsGone ? recheck : nil)
            var events: [WatchEvent] = []
            switch thread.wait(for: engine.descriptor, timeout: timeout) {
            case .stop:
                return
            case .timeout:
                engine.checkInboxBack(into: &events)
            case .readable:
                readBatch(engine, buffer: buffer, into: &events)
            }
            outlet.send(BatchCoalescer.coalesce(events))
            outlet.flush()
        }
    }

    /// Reads what is queued (a bounded amount, to keep latency low) and handles it.
    private static func readBatch(_ engine: InotifyEngine, buffer: UnsafeMutableRawBufferPointer, into events: inout [WatchEvent]) {
        var records: [InotifyRecord] = []
        var lost = false
        for _ in 0..<maxReadsPerBatch {
            let count = read(engine.descriptor, buffer.baseAddress, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                break  // EAGAIN: drained
            }
            if count == 0 { break }
            let parsed = InotifyRecord.parse(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            records += parsed.records
            lost = lost || parsed.truncated
        }
        engine.handle(records, into: &events)
        if lost { engine.resynchronize(into: &events) }
    }
}
