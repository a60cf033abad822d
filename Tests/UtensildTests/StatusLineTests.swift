import Testing
@testable import UtensilDaemon

/// The `STATUS=` line `systemctl status` shows: a past problem is not shown once nothing
/// waits for a retry any more.
@Suite("STATUS= line")
struct StatusLineTests {
    @Test func aProblemIsShownOnlyWhileDropsWaitForARetry() {
        var counters = DaemonCounters()
        counters.queued = 2
        counters.retries = 5
        counters.lastError = "The disk holding /var/lib/utensild is full."
        counters.waitingForRetry = 2
        #expect(
            StatusReporter.line(inbox: "/srv/utensils/inbox", utensils: 7, counters: counters)
                == "Watching /srv/utensils/inbox — 7 utensils, 2 queued, 0 rejected since start; "
                + "2 waiting for a retry after: The disk holding /var/lib/utensild is full.")

        counters.waitingForRetry = 0
        counters.queued = 0
        counters.ingested = 2
        #expect(
            StatusReporter.line(inbox: "/srv/utensils/inbox", utensils: 9, counters: counters)
                == "Watching /srv/utensils/inbox — 9 utensils, 0 queued, 0 rejected since start")
    }
}
