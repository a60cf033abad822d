import CUtensilSupport
import Glibc
import Synchronization

/// One run of a hook program, as ``HookProcess/run(_:stop:)`` is asked to make it.
struct HookLaunch: Sendable {
    /// The program's absolute path (`on_ingest` or `on_reject`).
    let program: String
    /// Its standard input: the event's JSON line.
    let input: [UInt8]
    /// Its whole environment, `NAME=value` each.
    let environment: [String]
    /// How long it may run before SIGTERM goes to it, its process group and what it started.
    let timeout: Duration
    /// How long after SIGTERM SIGKILL follows.
    let grace: Duration
    /// How much of what it prints is kept (the rest is read and counted, not kept).
    let outputLimit: Int
}

/// How a hook run ended.
enum HookEnd: Sendable, Equatable {
    /// It exited by itself with this status.
    case exited(Int32)
    /// A signal it did not get from utensild ended it.
    case signaled(Int32)
    /// It overran its time and was stopped; `signal` is the one that ended it (SIGTERM or SIGKILL).
    case timedOut(signal: Int32)
    /// utensild is stopping and stopped it.
    case stoppedAtShutdown
    /// It could not be started (`errno`: ENOENT, EACCES, ENOEXEC …).
    case couldNotStart(Int32)
}

/// What one hook run did.
struct HookRun: Sendable {
    var end: HookEnd
    /// The first ``HookLaunch/outputLimit`` bytes of its standard output and error.
    var output: [UInt8]
    /// Every byte it printed.
    var outputBytes: Int
    var duration: Duration
}

/// Asks a running hook to stop (utensild is shutting down); safe from any thread.
final class HookStopRequest: Sendable {
    private let requested = Atomic<Bool>(false)
    func request() { requested.store(true, ordering: .relaxed) }
    var isRequested: Bool { requested.load(ordering: .relaxed) }
}

/// Starts a hook and supervises it to its end on the calling (dedicated, blocking) thread:
/// `posix_spawn` as the leader of a new session (so of a process group it cannot leave) with
/// every other descriptor closed, input from a memory file written beforehand, output read as
/// it comes (kept up to a limit, the rest drained so the hook never blocks on a full pipe).
/// At the time limit (or shutdown) SIGTERM goes to the hook by its pid, to its process group
/// and to every process it started (``HookReaper``), SIGKILL after the grace time; a hook
/// still not gone a second after SIGKILL (uninterruptible sleep) is given up on, so that a
/// run always ends. Once the hook has ended, what it left behind is stopped and reaped.
enum HookProcess {
    /// How often the processes a running hook started are looked for.
    static let trackingInterval = Duration.milliseconds(200)
    /// How long after SIGKILL a hook that has not ended is waited for, and its leftovers.
    static let killWait = Duration.seconds(1)

    static func run(_ launch: HookLaunch, stop: HookStopRequest, reaper: HookReaper = .shared) -> HookRun {
        let started = ContinuousClock.now
        var run = HookRun(end: .couldNotStart(0), output: [], outputBytes: 0, duration: .zero)

        let input = utensil_memfd("utensil-hook-input")
        guard input >= 0 else { return failed(errno, started) }
        defer { close(input) }
        guard writeAll(input, launch.input), lseek(input, 0, SEEK_SET) == 0 else { return failed(errno, started) }

        var ends: [Int32] = [0, 0]
        guard utensil_pipe_cloexec(&ends) == 0 else { return failed(errno, started) }
        var reader: Int32 = ends[0]
        // Only the daemon's end is non-blocking: the hook writes as any program does.
        _ = fcntl(reader, F_SETFL, O_NONBLOCK)
        defer { if reader >= 0 { close(reader) } }

        let pid: Int32
        let tracked: HookReaper.Run
        switch reaper.start({ spawn(launch, input: input, output: ends[1]) }) {
        case .success(let (run, child)):
            (tracked, pid) = (run, child)
        case .failure(let failure):
            close(ends[1])
            return failed(failure.code, started)
        }
        close(ends[1])

        let exitWatch = utensil_pidfd_open(pid)
        defer { if exitWatch >= 0 { close(exitWatch) } }
        let deadline = started + launch.timeout
        var termSentAt: ContinuousClock.Instant?
        var killedAt: ContinuousClock.Instant?
        var lastTracked = started
        var stoppedForShutdown = false
        var reaped = false
        var status: Int32 = 0
        var buffer = [UInt8](repeating: 0, count: 65536)

        while true {
            // Wait for output, the exit, or the next moment something must be decided.
            let now = ContinuousClock.now
            var next = min(termSentAt.map { $0 + launch.grace } ?? deadline, lastTracked + trackingInterval)
            if killedAt != nil { next = now + .milliseconds(100) }
            let wait = min(max(next - now, .zero), .milliseconds(exitWatch >= 0 ? 200 : 50))
            var fds: [pollfd] = []
            if reader >= 0 { fds.append(pollfd(fd: reader, events: Int16(POLLIN), revents: 0)) }
            if exitWatch >= 0 { fds.append(pollfd(fd: exitWatch, events: Int16(POLLIN), revents: 0)) }
            _ = poll(&fds, nfds_t(fds.count), Int32(milliseconds(wait)))

            if reader >= 0, drain(reader, into: &run, buffer: &buffer, limit: launch.outputLimit) {
                close(reader)
                reader = -1
            }
            if waitpid(pid, &status, WNOHANG) == pid {
                reaped = true
                // Whatever it wrote before exiting; a child it left behind may hold the pipe open.
                if reader >= 0 { _ = drain(reader, into: &run, buffer: &buffer, limit: launch.outputLimit) }
                break
            }
            let current = ContinuousClock.now
            if termSentAt == nil && (current >= deadline || stop.isRequested) {
                stoppedForShutdown = current < deadline
                signal(SIGTERM, hook: pid, tracked, reaper)
                termSentAt = current
            } else if let sent = termSentAt, killedAt == nil, current >= sent + launch.grace {
                signal(SIGKILL, hook: pid, tracked, reaper)
                killedAt = current
            } else if let killed = killedAt, current >= killed + killWait {
                break
            } else if current >= lastTracked + trackingInterval {
                reaper.track()
                lastTracked = current
            }
        }
        reaper.rootEnded(tracked)
        // What it left: told to stop (SIGTERM, then SIGKILL) after a clean end; killed at once
        // when it was itself stopped (those it had started were signalled with it).
        reaper.finish(
            tracked, first: termSentAt == nil ? SIGTERM : SIGKILL, grace: launch.grace,
            limit: termSentAt == nil ? launch.grace + killWait : killWait)
        run.duration = ContinuousClock.now - started
        let signal = status & 0x7F
        if !reaped {
            run.end = stoppedForShutdown ? .stoppedAtShutdown : .timedOut(signal: SIGKILL)
        } else if termSentAt != nil && signal != 0 {
            run.end = stoppedForShutdown ? .stoppedAtShutdown : .timedOut(signal: signal)
        } else if signal != 0 {
            run.end = .signaled(signal)
        } else {
            run.end = .exited((status >> 8) & 0xFF)
        }
        return run
    }

    /// `signal` to the hook by its pid (it cannot have been reaped: only this thread reaps
    /// it), to its process group, and to every process it started that is known.
    private static func signal(_ signal: Int32, hook pid: Int32, _ tracked: HookReaper.Run, _ reaper: HookReaper) {
        kill(pid, signal)
        kill(-pid, signal)
        reaper.signal(tracked, signal)
    }

    /// Whole milliseconds (rounded up, so that a wait never spins).
    private static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
    }

    private static func failed(_ code: Int32, _ started: ContinuousClock.Instant) -> HookRun {
        HookRun(end: .couldNotStart(code), output: [], outputBytes: 0, duration: ContinuousClock.now - started)
    }

    /// Reads what is there; true at end of file.
    private static func drain(_ fd: Int32, into run: inout HookRun, buffer: inout [UInt8], limit: Int) -> Bool {
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count == 0 { return true }
            if count < 0 { return errno != EAGAIN && errno != EINTR }
            let room = max(0, limit - run.output.count)
            if room > 0 { run.output.append(contentsOf: buffer[0..<min(room, count)]) }
            run.outputBytes += count
        }
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }

    private static func spawn(_ launch: HookLaunch, input: Int32, output: Int32) -> Result<Int32, SpawnFailure> {
        let argv = [strdup(launch.program)] + [nil]
        let envp = launch.environment.map { strdup($0) } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: Int32 = 0
        let code = utensil_spawn_hook(launch.program, argv, envp, input, output, &pid)
        return code == 0 ? .success(pid) : .failure(SpawnFailure(code: code))
    }
}

/// `posix_spawn`'s errno value.
struct SpawnFailure: Error {
    let code: Int32
}

