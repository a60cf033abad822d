import Foundation
import Logging
import Synchronization
import UtensilStore
import UtensilSystemd

/// Keeps systemd informed: `READY=1`, a `STATUS=` line kept current (at most about once a
/// second, and only when something changed), and `WATCHDOG=1` only while ingests make
/// progress, so that a hung decoder lets the watchdog fire.
struct StatusReporter: Sendable {
    let inbox: String
    let store: UtensilStore
    let scheduler: DropScheduler
    let link: SystemdLink
    let logger: Logger

    /// The one-line summary shown by `systemctl status`.
    static func line(inbox: String, utensils: Int, counters: DaemonCounters) -> String {
        if counters.inboxMissing {
            return "Inbox \(inbox) is missing — waiting for it; \(utensils) utensils, \(counters.queued) queued"
        }
        var line = "Watching \(inbox) — \(utensils) utensils, \(counters.queued) queued"
        if counters.heldOpen > 0 { line += " (\(counters.heldOpen) still open by their writer)" }
        if counters.inFlight > 0 { line += ", \(counters.inFlight) ingesting" }
        line += ", \(counters.rejected) rejected since start"
        if counters.waitingForRetry > 0, let error = counters.lastError {
            line += "; \(counters.waitingForRetry) waiting for a retry after: \(error)"
        }
        return line
    }

    func ready() {
        link.send { try $0.ready() }
    }

    /// Sends `STATUS=` after each change of the scheduler's counters or of the store's
    /// utensils (an ingest, a trash, restore or delete, from any caller: the store tells),
    /// at most about once a second. The utensil count is the catalog's own (asked through the
    /// store), never a tally kept beside it. Runs until cancelled.
    func runStatus() async {
        guard link.notifier != nil else { return }
        let (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        await withDiscardingTaskGroup { group in
            group.addTask {
                // Ends when the scheduler stops.
                for await _ in await scheduler.changes() { wake.yield() }
            }
            group.addTask {
                // Followed until cancelled.
                for await _ in store.countChanges() { wake.yield() }
            }
            wake.yield()  // The first line, at once.
            var lastSent = ContinuousClock.now - .seconds(2)
            var lastLine = ""
            var lastCount = 0
            for await _ in wakeups {
                let wait = lastSent + .seconds(1) - ContinuousClock.now
                if wait > .zero { try? await Task.sleep(for: wait) }
                let counters = await scheduler.counters
                if let count = try? await store.count() { lastCount = count }
                let line = Self.line(inbox: inbox, utensils: lastCount, counters: counters)
                if line != lastLine {
                    link.send { try $0.status(line) }
                    lastLine = line
                    lastSent = .now
                }
            }
            group.cancelAll()
        }
    }

    /// Pings the watchdog at half its interval while no ingest has been running for longer
    /// than the interval itself.
    func runWatchdog() async {
        guard let interval = link.watchdogInterval else { return }
        while !Task.isCancelled {
            let started = await scheduler.oldestInFlightStart()
            if let started, ContinuousClock.now - started > interval {
                logger.critical("An ingest has been running for over \(interval); letting the watchdog restart utensild")
            } else {
                link.send { try $0.watchdog() }
            }
            do { try await Task.sleep(for: interval / 2) } catch { return }
        }
    }
}
