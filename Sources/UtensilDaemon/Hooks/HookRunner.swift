import Foundation
import Logging
import Synchronization
import UtensilConfig
import UtensilMetrics

/// Runs the ingest hooks (`on_ingest`, `on_reject`) for the events the daemon publishes,
/// without ever making an ingest wait: ``submit(_:)`` only queues, and ``run()`` (a service
/// of the daemon) starts at most ``runningLimit`` hooks at once, each supervised on a thread
/// of its own (``HookProcess``), keeps at most ``waitingLimit`` more waiting and drops the
/// rest with a journal entry. Every end that is not a clean exit is logged with
/// `MESSAGE_ID` ``MessageID/hookFailed``. On shutdown the running hooks and what they started
/// are stopped (SIGTERM, then SIGKILL: ``HookProcess``, ``HookReaper``), within a few seconds
/// whatever they do, and the waiting ones are not started.
actor HookRunner {
    /// The hook settings in force (replaced on reload).
    struct Settings: Sendable, Equatable {
        var onIngest: String
        var onReject: String
        var timeout: Duration

        init(_ configuration: UtensilConfiguration) {
            onIngest = configuration.onIngest
            onReject = configuration.onReject
            timeout = .milliseconds(Int64((configuration.hookTimeoutSeconds * 1000).rounded(.up)))
        }

        /// The program for `kind`, nil when none is configured.
        func program(for kind: HookKind) -> String? {
            let path = kind == .onIngest ? onIngest : onReject
            return path.isEmpty ? nil : path
        }
    }

    /// Hooks running at once; more wait.
    static let runningLimit = 4
    /// Hooks waiting for a place; beyond this an event's hook is not run (and logged).
    static let waitingLimit = 64
    /// Bytes of a hook's output kept for the journal; the rest is read and counted only.
    static let outputLimit = 8192
    /// Between SIGTERM and SIGKILL.
    static let grace = Duration.milliseconds(Int64(Limits.hookStopGraceSeconds * 1000))

    private nonisolated let settings: Mutex<Settings>
    private nonisolated let jobs: AsyncStream<HookJob>
    private nonisolated let queue: AsyncStream<HookJob>.Continuation
    private nonisolated let log: HookLog
    private nonisolated let inherited: [String]
    private nonisolated let socket: String
    private nonisolated let host: String
    private nonisolated let rejectedFolder: String
    /// Hooks started and not yet ended (owned here: started and awaited by ``run()``).
    private var running = 0

    init(
        settings: Settings, socket: String, host: String, rejectedFolder: String, environment: [String: String],
        logger: Logger, metrics: DaemonMetrics? = nil
    ) {
        self.rejectedFolder = rejectedFolder
        log = HookLog(logger: logger, metrics: metrics)
        self.settings = Mutex(settings)
        (jobs, queue) = AsyncStream.makeStream(of: HookJob.self, bufferingPolicy: .bufferingOldest(Self.waitingLimit))
        self.socket = socket
        self.host = host
        inherited = HookEvent.inherited(from: environment)
    }

    /// Takes new settings (SIGHUP); events already queued keep the program they were queued for.
    nonisolated func update(_ new: Settings) { settings.withLock { $0 = new } }

    /// Queues the hook for `event`, if one is configured for its kind; never waits.
    nonisolated func submit(_ event: HookEvent) {
        guard let kind = event.kind else { return }
        let (program, timeout) = settings.withLock { ($0.program(for: kind), $0.timeout) }
        guard let program else { return }
        let job = HookJob(event: event, kind: kind, program: program, timeout: timeout)
        if case .dropped = queue.yield(job) { log.dropped(job) }
    }

    /// Starts the queued hooks, at most ``runningLimit`` at once, until cancelled; then stops
    /// those running and returns once they have ended.
    func run() async {
        await withTaskGroup(of: Void.self) { group in
            var waiting = jobs.makeAsyncIterator()
            while !Task.isCancelled {
                // A place first, then the next job: what waits stays in the bounded queue.
                if running >= Self.runningLimit {
                    if await group.next() != nil { running -= 1 }
                    continue
                }
                guard !Task.isCancelled, let job = await waiting.next() else { break }
                running += 1
                group.addTask { await self.execute(job) }
            }
            queue.finish()
            for await _ in group { running -= 1 }
        }
    }

    private nonisolated func execute(_ job: HookJob) async {
        let launch = HookLaunch(
            program: job.program, input: job.event.input(),
            environment: inherited + job.event.variables(socket: socket, host: host, rejectedFolder: rejectedFolder),
            timeout: job.timeout, grace: Self.grace, outputLimit: Self.outputLimit)
        let stop = HookStopRequest()
        let result = await withTaskCancellationHandler {
            await Self.onOwnThread { HookProcess.run(launch, stop: stop) }
        } onCancel: {
            stop.request()
        }
        log.finished(job, result)
    }

    /// Runs `body` on a new thread: a hook's supervision blocks, and must take nothing from
    /// the ingest workers' threads nor from Swift's cooperative pool.
    private static func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: body()) }
            thread.name = "utensild-hook"
            thread.start()
        }
    }
}
