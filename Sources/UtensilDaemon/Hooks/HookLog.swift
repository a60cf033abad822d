import Glibc
import Logging
import UtensilCore
import UtensilMetrics
import UtensilStore

/// One queued run of a hook: the event, and the program and time limit in force when it came.
struct HookJob: Sendable {
    let event: HookEvent
    let kind: HookKind
    let program: String
    let timeout: Duration
}

/// What the journal (and the metrics) say about hooks: a clean exit at `info` (with output)
/// or `debug` (without); every other end a warning with `MESSAGE_ID`
/// ``MessageID/hookFailed``; a hook not run for lack of room, ``MessageID/hookDropped``.
struct HookLog: Sendable {
    let logger: Logger
    let metrics: DaemonMetrics?

    func dropped(_ job: HookJob) {
        metrics?.recordHook(job.kind.rawValue, end: "dropped")
        logger.warning(
            "Ingest hook \(job.kind.rawValue) not run for \(job.event.event.inboxFile): \(HookRunner.runningLimit) hooks are running and \(HookRunner.waitingLimit) waiting",
            metadata: fields(of: job, messageID: .hookDropped))
    }

    func finished(_ job: HookJob, _ run: HookRun) {
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

    private func fields(of job: HookJob, run: HookRun? = nil, messageID: MessageID?) -> Logger.Metadata {
        var metadata: Logger.Metadata = .journal([
            .hook: .string(job.kind.rawValue), .hookProgram: .string(job.program),
            .inboxFile: .string(job.event.event.inboxFile),
        ])
        if let messageID { metadata[.messageID] = .id(messageID) }
        if let utensil = job.event.event.utensil { metadata[.utensilID] = .string(utensil.id) }
        if let reason = job.event.event.reason { metadata[.rejectReason] = .string(reason) }
        if let run {
            metadata[.hookEnd] = .string(Self.endText(run.end))
            metadata[.durationMS] = .string(String(Self.milliseconds(run.duration)))
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
