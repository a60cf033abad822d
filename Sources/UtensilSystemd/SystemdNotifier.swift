import CSystemd
import Glibc

/// Tells the service manager about the daemon's state through `sd_notify` (`Type=notify`).
///
/// `sd_notify` reads `NOTIFY_SOCKET` on every call and is never asked to unset it, so the
/// daemon and its children may read the environment again later.
public struct SystemdNotifier: Sendable {
    /// The value of `NOTIFY_SOCKET` when this notifier was made (for diagnostics).
    public let socket: String

    /// A notifier when `NOTIFY_SOCKET` is set, `nil` otherwise (not run by systemd): callers can skip
    /// building status lines altogether.
    public static func fromEnvironment() -> SystemdNotifier? {
        guard let value = getenv("NOTIFY_SOCKET"), value.pointee != 0 else { return nil }
        return SystemdNotifier(socket: String(cString: value))
    }

    /// `READY=1`: start-up is complete (or a reload finished), optionally with a status line.
    public func ready(status: String? = nil) throws(SystemdNotifyError) {
        try send(["READY=1"] + Self.statusAssignment(status))
    }

    /// `STATUS=`: the one-line summary `systemctl status` shows; line breaks become spaces.
    public func status(_ text: String) throws(SystemdNotifyError) {
        try send(Self.statusAssignment(text))
    }

    /// `WATCHDOG=1`: the keep-alive ping, due every ``watchdogInterval`` / 2.
    public func watchdog() throws(SystemdNotifyError) {
        try send(["WATCHDOG=1"])
    }

    /// `STOPPING=1`: shutdown has begun, optionally with a status line.
    public func stopping(status: String? = nil) throws(SystemdNotifyError) {
        try send(["STOPPING=1"] + Self.statusAssignment(status))
    }

    /// `RELOADING=1` with `MONOTONIC_USEC=` (now), which `Type=notify-reload` (systemd 253+)
    /// requires and older managers ignore. Send ``ready(status:)`` when the reload is done.
    public func reloading(status: String? = nil) throws(SystemdNotifyError) {
        try send(
            ["RELOADING=1", "MONOTONIC_USEC=\(MonotonicClock.nowMicroseconds())"]
                + Self.statusAssignment(status))
    }

    /// The watchdog time-out systemd expects pings within (`WATCHDOG_USEC`, honouring
    /// `WATCHDOG_PID`), or `nil` when the watchdog is off for this process.
    public var watchdogInterval: Duration? {
        var microseconds: UInt64 = 0
        guard sd_watchdog_enabled(0, &microseconds) > 0, microseconds > 0 else { return nil }
        return .microseconds(microseconds)
    }

    /// Sends the assignments as one datagram, one `NAME=value` per line.
    func send(_ assignments: [String]) throws(SystemdNotifyError) {
        let result = sd_notify(0, assignments.joined(separator: "\n"))
        if result < 0 { throw .sendFailed(errno: -result) }
        if result == 0 { throw .notifySocketUnset }
    }

    /// `STATUS=<text on one line>`, or nothing when there is no status.
    static func statusAssignment(_ status: String?) -> [String] {
        guard let status else { return [] }
        return ["STATUS=" + oneLine(status)]
    }

    /// Line breaks (any run of them) become one space; NUL, which would end the C string, is dropped.
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline)
            .map { $0.filter { $0 != "\0" } }
            .joined(separator: " ")
    }
}
