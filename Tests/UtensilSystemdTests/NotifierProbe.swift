import Foundation
import Testing
import UtensilSystemd

/// The child half of ``SystemdNotifierTests``: runs only in a copy of this test binary that a
/// test started with `UTENSIL_SYSTEMD_PROBE_REPORT` set, and writes what it saw to that file.
///
/// `sd_notify` and `sd_watchdog_enabled` read `NOTIFY_SOCKET`, `WATCHDOG_USEC` and
/// `WATCHDOG_PID` from the process environment. Setting those in the test process itself would
/// leak into every test running in parallel (other targets' tests included, when the whole
/// package is tested), and `setenv` is not thread-safe; a child process gets its own.
@Suite struct NotifierProbe {
    static let reportVariable = "UTENSIL_SYSTEMD_PROBE_REPORT"
    static let sendVariable = "UTENSIL_SYSTEMD_PROBE_SEND"

    /// The notifications the probe sends when asked to, in order.
    static func sendAll(_ notifier: SystemdNotifier) throws {
        try notifier.ready(status: "Scanning the inbox")
        try notifier.status("3 queued\n1 in flight\r\n")
        try notifier.watchdog()
        try notifier.reloading()
        try notifier.stopping(status: "Finishing 2 ingests")
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment[reportVariable] != nil))
    func probe() throws {
        let environment = ProcessInfo.processInfo.environment
        let notifier = SystemdNotifier.fromEnvironment()
        var report = [
            "notifier=\(notifier?.socket ?? "nil")",
            "watchdog=\(notifier?.watchdogInterval.map { String(Self.microseconds($0)) } ?? "nil")",
        ]
        if let notifier, environment[Self.sendVariable] == "1" {
            do {
                try Self.sendAll(notifier)
                report.append("sent=ok")
            } catch {
                report.append("sent=\(error)")
            }
        }
        try report.joined(separator: "\n").write(
            toFile: try #require(environment[Self.reportVariable]), atomically: true, encoding: .utf8)
    }

    static func microseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000
    }
}
