import Foundation
import Testing
import UtensilSystemd

/// `SystemdNotifier` in a child process (see ``NotifierProbe`` for why) against a real datagram socket.
@Suite struct SystemdNotifierTests {
    /// What the child's `WATCHDOG_PID` is.
    enum WatchdogPID: Sendable, CustomStringConvertible {
        case unset, child, other
        var description: String {
            switch self {
            case .unset: "unset"
            case .child: "the child's"
            case .other: "another process's"
            }
        }
    }

    /// Runs ``NotifierProbe`` in a copy of this test binary with `variables` added to a clean
    /// environment; returns its report as `name → value`.
    static func runProbe(
        _ variables: [String: String], watchdogPID: WatchdogPID = .unset, send: Bool = false
    ) async throws -> [String: String] {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        var environment = ProcessInfo.processInfo.environment.filter {
            !["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"].contains($0.key)
        }
        environment.merge(variables) { _, new in new }
        environment[NotifierProbe.reportVariable] = folder.appending("report")
        environment[NotifierProbe.sendVariable] = send ? "1" : "0"
        // The shell execs the test binary, so `$$` is the probe's own pid.
        let pidAssignment =
            switch watchdogPID {
            case .unset: ""
            case .child: "WATCHDOG_PID=$$; export WATCHDOG_PID; "
            case .other: "WATCHDOG_PID=1; export WATCHDOG_PID; "
            }
        let testBinary = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let child = try await ChildProcess.run(
            "/bin/sh",
            ["-c", pidAssignment + #"exec "$0" "$@""#, testBinary,
             "--testing-library", "swift-testing", "--filter", "NotifierProbe"],
            environment: environment)
        let reportText = try? String(contentsOfFile: folder.appending("report"), encoding: .utf8)
        let report = try #require(reportText, "the probe wrote no report:\n\(child.transcript)")
        #expect(child.status == 0, "\(child.transcript)")
        var values: [String: String] = [:]
        for line in report.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            values[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
        }
        return values
    }

    @Test func sendsEachNotificationAsOneDatagramWithExactText() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let socket = try DatagramSocket(boundTo: folder.appending("notify"))
        let before = Self.monotonicMicroseconds()
        let report = try await Self.runProbe(["NOTIFY_SOCKET": socket.path], send: true)
        let after = Self.monotonicMicroseconds()
        #expect(report["notifier"] == socket.path)
        #expect(report["sent"] == "ok")

        // sd_notify returns once the datagram is queued, and the probe has exited: all are here
        // (five datagrams fit the default queue of ten, so the probe never blocked).
        let messages = socket.drain()
        try #require(messages.count == 5, "\(messages)")
        #expect(messages[0] == "READY=1\nSTATUS=Scanning the inbox")
        #expect(messages[1] == "STATUS=3 queued 1 in flight")
        #expect(messages[2] == "WATCHDOG=1")
        #expect(messages[4] == "STOPPING=1\nSTATUS=Finishing 2 ingests")
        let reloading = messages[3].split(separator: "\n")
        try #require(reloading.count == 2, "\(messages[3])")
        #expect(reloading[0] == "RELOADING=1")
        let stamp = try #require(reloading[1].wholeMatch(of: /MONOTONIC_USEC=([0-9]+)/)?.output.1)
        let microseconds = try #require(UInt64(stamp))
        #expect((before...after).contains(microseconds))
    }

    @Test func fromEnvironmentIsNilWithoutNotifySocket() async throws {
        let report = try await Self.runProbe(["WATCHDOG_USEC": "4000000"])
        #expect(report["notifier"] == "nil")
    }

    @Test func reportsAFailedSendAsATypedError() async throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let report = try await Self.runProbe(["NOTIFY_SOCKET": folder.appending("nobody-listens")], send: true)
        #expect(report["sent"] == "\(SystemdNotifyError.sendFailed(errno: ENOENT))")
    }

    @Test(arguments: [
        (["WATCHDOG_USEC": "4000000"], WatchdogPID.child, "4000000"),
        (["WATCHDOG_USEC": "4000000"], WatchdogPID.unset, "4000000"),
        (["WATCHDOG_USEC": "4000000"], WatchdogPID.other, "nil"),
        (["WATCHDOG_USEC": "0"], WatchdogPID.child, "nil"),
        (["WATCHDOG_USEC": "soon"], WatchdogPID.child, "nil"),
        ([:], WatchdogPID.child, "nil"),
    ])
    func watchdogIntervalFollowsWatchdogVariables(
        variables: [String: String], pid: WatchdogPID, expected: String
    ) async throws {
        let report = try await Self.runProbe(
            variables.merging(["NOTIFY_SOCKET": "/run/utensild-test/notify"]) { old, _ in old }, watchdogPID: pid)
        #expect(report["watchdog"] == expected, "WATCHDOG_PID \(pid)")
    }

    static func monotonicMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
    }
}
