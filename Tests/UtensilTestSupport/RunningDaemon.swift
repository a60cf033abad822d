import Foundation
import Glibc
import UtensilCatalogSQLite
import UtensilCatalogModel

/// The real `utensild` daemon running as a child process on a test world, with a real
/// `NOTIFY_SOCKET` so that the test waits for `READY=1` rather than sleeping.
public final class RunningDaemon: @unchecked Sendable {
    public let world: TestWorld
    public let notifications: NotifyListener
    public let process: Process
    private let errors: Pipe
    private let logLock = NSLock()
    private var logData = Data()

    /// Starts utensild (settle time 0.2 s unless `extra` says otherwise; through `launcher`, see
    /// `UtensildProcess.start`) and waits for READY=1.
    public init(
        world: TestWorld, extra: [String] = [], environment: [String: String] = [:], launcher: [String] = [],
        waitForReady: Bool = true
    ) throws {
        self.world = world
        notifications = try NotifyListener(folder: world.root)
        var env = environment
        env["NOTIFY_SOCKET"] = notifications.path
        var arguments = UtensildProcess.arguments(for: world, extra: extra)
        if !extra.contains("--settle-seconds") {
            arguments += ["--settle-seconds", "0.2"]
        }
        let (process, _, errors) = try UtensildProcess.start(arguments, environment: env, launcher: launcher)
        self.process = process
        self.errors = errors
        // Non-blocking, so that `log` can take what the daemon wrote before it returns: a line
        // logged before a READY=1 is in `log` once that READY=1 has been received.
        let descriptor = errors.fileHandleForReading.fileDescriptor
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        errors.fileHandleForReading.readabilityHandler = { [weak self] handle in
            guard let self else { return }
            if self.logLock.withLock({ self.drainLocked() }) { handle.readabilityHandler = nil }
        }
        if waitForReady {
            do {
                try notifications.wait(for: "READY=1")
            } catch {
                kill()
                throw TestFailure("utensild did not become ready: \(error)\n\(log)")
            }
        }
    }

    deinit { kill() }

    /// What the daemon wrote to stderr so far.
    public var log: String {
        logLock.withLock {
            _ = drainLocked()
            return String(decoding: logData, as: UTF8.self)
        }
    }

    /// The last `count` lines the daemon wrote to stderr so far.
    public func logTail(_ count: Int = 60) -> String {
        log.split(separator: "\n", omittingEmptySubsequences: false).suffix(count).joined(separator: "\n")
    }

    /// Appends what the pipe holds now to `logData` (under `logLock`); true at end of file.
    private func drainLocked() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(errors.fileHandleForReading.fileDescriptor, &buffer, buffer.count)
            if count > 0 {
                logData.append(contentsOf: buffer[..<count])
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                return count == 0
            }
        }
    }

    /// Polls the catalog (a reader beside the daemon, as WAL allows) until `predicate` holds.
    @discardableResult
    public func waitForCatalog(seconds: Double = 180, _ what: String, _ predicate: ([UtensilRecord]) -> Bool) throws -> [UtensilRecord] {
        let deadline = Date().addingTimeInterval(seconds)
        let catalog = try SQLiteCatalog(path: world.state.appendingPathComponent("utensils.sqlite").path)
        while true {
            let rows = try catalog.all()
            if predicate(rows) { return rows }
            guard Date() < deadline else { throw TestFailure("timed out waiting for \(what); catalog has \(rows.count) rows\n\(log)") }
            usleep(50_000)  // Polling with a deadline.
        }
    }

    public func waitForUtensils(_ count: Int, seconds: Double = 180) throws {
        try waitForCatalog(seconds: seconds, "\(count) utensils") { $0.count == count }
    }

    /// Polls the file system until `predicate` holds, or fails after `seconds`.
    public func waitUntil(seconds: Double = 60, _ what: String, _ predicate: () -> Bool) throws {
        try Poll.until(seconds: seconds, what, detail: { log }, predicate)
    }

    public func signal(_ signal: Int32) {
        if process.isRunning { Glibc.kill(process.processIdentifier, signal) }
    }

    /// SIGHUP, then waits until the reload is done (`RELOADING=1`, then `READY=1`).
    public func reload() throws {
        notifications.reset()
        signal(SIGHUP)
        try notifications.wait(for: "RELOADING=1")
        try notifications.wait(for: "READY=1")
    }

    /// SIGTERM, then waits for the exit; returns the exit status.
    @discardableResult
    public func terminate(seconds: Double = 60) throws -> Int32 {
        signal(SIGTERM)
        try waitUntil(seconds: seconds, "utensild to exit after SIGTERM") { !process.isRunning }
        process.waitUntilExit()
        reportDeathBySignal()
        return process.terminationStatus
    }

    /// A daemon that died of a signal other than the SIGTERM asked for (a trap, a crash)
    /// leaves its log's last lines on standard error, so the failing run says why.
    func reportDeathBySignal() {
        guard process.terminationReason == .uncaughtSignal, process.terminationStatus != SIGTERM else { return }
        let tail = logTail(60)
        FileHandle.standardError.write(Data(
            "utensild (pid \(process.processIdentifier)) died of signal \(process.terminationStatus); its log ends:\n\(tail)\n".utf8))
    }

    public func kill() {
        if process.isRunning {
            Glibc.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        errors.fileHandleForReading.readabilityHandler = nil
    }
}
