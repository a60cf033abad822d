import Foundation
import Glibc
import Synchronization

/// The dedicated thread behind a watcher: starts it once, lets it sleep in `poll()` on its own
/// descriptor plus a wake-up socket (zero CPU while idle), and stops it on request or when the
/// consumer of the stream goes away.
final class WatcherThread: Sendable {
    enum Wake { case readable, timeout, stop }

    private enum Phase { case idle, running, stopped }

    private struct State {
        var phase = Phase.idle
        var stopRequested = false
        /// Read end (polled by the thread) and write end (poked by `stop()`); -1 once closed.
        var wakeRead: Int32
        var wakeWrite: Int32
        var exitWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    init() throws(WatchError) {
        var pair: [Int32] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue | SOCK_NONBLOCK.rawValue)
        guard socketpair(AF_UNIX, type, 0, &pair) == 0 else {
            throw .systemCallFailed(call: "socketpair", errno: errno)
        }
        state = Mutex(State(wakeRead: pair[0], wakeWrite: pair[1]))
    }

    deinit {
        state.withLock { Self.closeWake(&$0) }
    }

    /// Starts `body` on a new thread named `name` and returns its stream, or `nil` if the thread
    /// was started before or `stop()` came first. `body` must return soon after `wait` says
    /// `.stop`, having closed its own descriptors; the stream then finishes.
    func start(
        name: String, bufferLimit: Int,
        body: @escaping @Sendable (WatcherThread, inout EventOutlet) -> Void
    ) -> AsyncStream<WatchEvent>? {
        let canStart = state.withLock { state -> Bool in
            guard state.phase == .idle else { return false }
            state.phase = .running
            return true
        }
        guard canStart else { return nil }
        let (stream, continuation) = AsyncStream.makeStream(
            of: WatchEvent.self, bufferingPolicy: .bufferingOldest(max(bufferLimit, 1)))
        continuation.onTermination = { [weak self] _ in self?.stop() }
        let thread = Thread { [self] in
            var outlet = EventOutlet(continuation)
            body(self, &outlet)
            let waiters = state.withLock { state in
                Self.closeWake(&state)
                state.phase = .stopped
                defer { state.exitWaiters.removeAll() }
                return state.exitWaiters
            }
            outlet.finish()
            for waiter in waiters { waiter.resume() }
        }
        thread.name = name
        thread.start()
        return stream
    }

    /// Asks the thread to stop. Returns `true` if it had never started, so the caller must
    /// release the thread's resources itself.
    @discardableResult
    func stop() -> Bool {
        state.withLock { state -> Bool in
            state.stopRequested = true
            switch state.phase {
            case .idle:
                state.phase = .stopped
                Self.closeWake(&state)
                return true
            case .running:
                if state.wakeWrite >= 0 {
                    var byte: UInt8 = 1
                    _ = write(state.wakeWrite, &byte, 1)  // full buffer: a wake-up is pending anyway
                }
                return false
            case .stopped:
                return false
            }
        }
    }

    var stopRequested: Bool { state.withLock { $0.stopRequested } }

    /// Returns once the thread has ended (at once if it never ran or already ended).
    func waitForExit() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state -> Bool in
                guard state.phase == .running else { return true }
                state.exitWaiters.append(waiter)
                return false
            }
            if resumeNow { waiter.resume() }
        }
    }

    /// Sleeps until `descriptor` is readable, `timeout` passes (`nil`: never) or a stop is
    /// requested. Called on the thread only.
    func wait(for descriptor: Int32?, timeout: Duration?) -> Wake {
        let wakeRead = state.withLock { $0.wakeRead }
        var fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        if let descriptor { fds.append(pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)) }
        let milliseconds = timeout.map(Self.milliseconds) ?? -1
        while true {
            if stopRequested { return .stop }
            let ready = poll(&fds, nfds_t(fds.count), milliseconds)
            if ready < 0 {
                if errno == EINTR { continue }
                return .stop  // only EFAULT/EINVAL/ENOMEM: nothing sensible left to do
            }
            if ready == 0 { return .timeout }
            if fds[0].revents != 0 {
                drain(wakeRead)
                if stopRequested { return .stop }
            }
            if fds.count > 1, fds[1].revents != 0 { return .readable }
        }
    }

    private func drain(_ descriptor: Int32) {
        var scratch = [UInt8](repeating: 0, count: 64)
        while read(descriptor, &scratch, scratch.count) > 0 {}
    }

    private static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        let total = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return Int32(clamping: max(total, 0))
    }

    private static func closeWake(_ state: inout State) {
        if state.wakeRead >= 0 { close(state.wakeRead) }
        if state.wakeWrite >= 0 { close(state.wakeWrite) }
        state.wakeRead = -1
        state.wakeWrite = -1
    }
}
