import Foundation
import Logging
import Synchronization
import UtensilConfig
import UtensilCore
import UtensilIngest
import UtensilMetrics

/// Runs the ingest hooks (`on_ingest`, `on_reject`) for the events the daemon publishes,
/// without ever making an ingest wait: ``submit(_:)`` only queues, and ``run()`` (a service
/// of the daemon) starts at most ``runningLimit`` hooks at once, each supervised on a thread
/// of its own (``HookProcess``), keeps at most ``waitingLimit`` more waiting and drops the
/// rest with a journal entry. Every end that is not a clean exit is logged with
/// `MESSAGE_ID` ``MessageID/hookFailed``. On shutdown the running hooks are stopped
/// (SIGTERM, then SIGKILL) and the waiting ones are not started.
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

    private struct Job: Sendable {
        let event: HookEvent
        let kind: HookKind
        let program: String
        let timeout: Duration
    }

    private nonisolated let settings: Mutex<Settings>
    private nonisolated let jobs: AsyncStream<Job>
    private nonisolated let queue: AsyncStream<Job>.Continuation
    private nonisolated let logger: Logger
    private nonisolated let inherited: [String]
    private nonisolated let socket: String
    private nonisolated let host: String
    private nonisolated let rejectedFolder: String
    private nonisolated let metrics: DaemonMetrics?
    /// Hooks started and not yet ended (owned here: started and awaited by ``run()``).
    private var running = 0

    init(
        settings: Settings, socket: String, host: String, rejectedFolder: String, environment: [String: String],
        logger: Logger, metrics: DaemonMetrics? = nil
    ) {
        self.rejectedFolder = rejectedFolder
        self.metrics = metrics
        self.settings = Mutex(settings)
        (jobs, queue) = AsyncStream.makeStream(of: Job.self, bufferingPolicy: .bufferingOldest(Self.waitingLimit))
        self.logger = logger
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
        if case .dropped = queue.yield(Job(event: event, kind: kind, program: program, timeout: timeout)) {
            metrics?.recordHook(kind.rawValue, end: "dropped")
            logger.warning(
                "Ingest hook \(kind.rawValue) not run for \(event.event.inboxFile): \(Self.runningLimit) hooks are running and \(Self.waitingLimit) waiting",
                metadata: fields(of: Job(event: event, kind: kind, program: program, timeout: timeout),
                                 messageID: .hookDropped))
        }
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

    private nonisolated func execute(_ job: Job) async {
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
        log(job, result)
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

    private nonisolated func log(_ job: Job, _ run: HookRun) {
        metrics?.recordHook(job.kind.rawValue, end: Self.endText(run.end))
        let name = "Ingest hook \(job.kind.rawValue) (\(job.program)) for \(job.event.event.inboxFile)"
        let elapsed = "after \(Self.milliseconds(run.duration)) ms"
        let failure: String
        switch run.end {
        case .exited(0):
            let metadata = fields(of: job, run: run, messageID: nil)
            if run.outputBytes > 0 {
                logger.info("\(name) succeeded \(elapsed)", metadata: metadata)
            } else {
                logger.debug("\(name) succeeded \(elapsed)", metadata: metadata)
            }
            return
        case .exited(let status):
            failure = "exited with status \(status) \(elapsed)"
        case .signaled(let signal):
            failure = "was killed by signal \(signal) (\(Self.signalName(signal))) \(elapsed)"
        case .timedOut(let signal):
            failure = "ran longer than hook_timeout_seconds and was stopped with \(Self.signalName(signal)) \(elapsed); make it quicker or raise hook_timeout_seconds"
        case .stoppedAtShutdown:
            failure = "was stopped because utensild is stopping \(elapsed)"
        case .couldNotStart(let code):
            failure = "could not be started: \(String(cString: strerror(code))); check that \(job.kind.rawValue) names an executable program (a script needs a #! line) that the daemon's user may run"
        }
        let cut = run.outputBytes > run.output.count ? " (output cut to its first \(run.output.count) of \(run.outputBytes) bytes)" : ""
        logger.warning("\(name) \(failure)\(cut)", metadata: fields(of: job, run: run, messageID: .hookFailed))
    }

    private nonisolated func fields(of job: Job, run: HookRun? = nil, messageID: MessageID?) -> Logger.Metadata {
        var metadata: Logger.Metadata = .journal([
            .hook: .string(job.kind.rawValue), .hookProgram: .string(job.program),
            .inboxFile: .string(job.event.event.inboxFile),
        ])
        if let messageID { metadata[.messageID] = .id(messageID) }
        if let utensil = job.event.event.utensil { metadata[.utensilID] = .string(utensil.id) }
        if let reason = job.event.event.reason { metadata[.rejectReason] = .string(reason) }
        if let run {
            metadata[.hookEnd] = .string(Self.endText(run.end))
            metadata[.durationMilliseconds] = .string(String(Self.milliseconds(run.duration)))
            if run.outputBytes > 0 {
                metadata[.hookOutput] = .string(String(decoding: run.output, as: UTF8.self))
                metadata[.hookOutputBytes] = .string(String(run.outputBytes))
            }
        }
        return metadata
    }

    /// `exit 1`, `signal 9`, `timeout`, `shutdown`, `not started`: the `HOOK_END` field.
    static func endText(_ end: HookEnd) -> String {
        switch end {
        case .exited(let status): "exit \(status)"
        case .signaled(let signal): "signal \(signal)"
        case .timedOut: "timeout"
        case .stoppedAtShutdown: "shutdown"
        case .couldNotStart: "not started"
        }
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }

    private static func signalName(_ signal: Int32) -> String {
        switch signal {
        case SIGTERM: "SIGTERM"
        case SIGKILL: "SIGKILL"
        case SIGSEGV: "SIGSEGV"
        case SIGABRT: "SIGABRT"
        case SIGINT: "SIGINT"
        case SIGPIPE: "SIGPIPE"
        default: "signal \(signal)"
        }
    }
}
