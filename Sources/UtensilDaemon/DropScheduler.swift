import Foundation
import UtensilCore
import UtensilIngest
import UtensilStorage
import UtensilStore
import UtensilWatch

/// Decides when each drop is ingested: once it has settled, at most once at a time, again
/// after a back-off when it was left for a retry (at once, for a drop left because the catalog
/// or the storage did not answer, when ``answers(_:)`` says it is back), and as
/// `never-settled` when it kept changing for an hour. A settled drop that a writer still holds open (as `OpenWriters` tells) waits
/// for the close, up to the same hour. Owns the counters that status reports read.
///
/// Keyed by (device, inode): however many events arrive for a file, it is one entry.
actor DropScheduler {
    /// What a worker does next: a drop, or, while no drop is ready, a thumbnail to make again.
    enum Work: Sendable {
        case ingest(Job)
        case rethumb(UUID)
    }

    /// A drop handed to an ingest worker.
    struct Job: Sendable {
        var drop: Drop
        /// The drop kept changing, or stayed held open, for longer than `neverSettledAfter`: reject it.
        var neverSettled: Bool
    }

    private enum Phase {
        /// Look again at `due` (settling, or waiting out a retry back-off).
        case waiting(due: ContinuousClock.Instant)
        /// Settled, but its writer still holds it open: looked at again when an event says the
        /// hold ended, or at `deadline` (then it is `never-settled`).
        case heldOpen(deadline: ContinuousClock.Instant)
        case ready
        case inFlight(since: ContinuousClock.Instant)
    }

    private struct Entry {
        var drop: Drop
        var phase: Phase
        var firstSeen: ContinuousClock.Instant
        var attempts = 0
        var neverSettled = false
        /// What its last try was left for, when that was the catalog or the storage not
        /// answering: it is retried at once when that answers again, whatever remains of its
        /// back-off.
        var waitsFor: WaitCause?
        /// It was retried early because what it waited for answered again. Should that try fail
        /// for the same reason (or the other), the drop waits out its back-off instead of being
        /// woken again: at most one early try per back-off, however often the catalog or the
        /// storage seems to come back.
        var wokenEarly = false
        /// Submitted again once this entry's ingest is finished: drops seen while it was in
        /// flight (after the ingest removed the file, its inode may already belong to a new
        /// drop, which must not be forgotten with this entry), and other names of the same
        /// file (hard links), each of which is a drop in its own right.
        var later: [Drop] = []

        mutating func remember(_ drop: Drop) {
            later.removeAll { $0.path == drop.path }
            later.append(drop)
        }
    }

    private var entries: [FileIdentity: Entry] = [:]
    private var readyQueue: [FileIdentity] = []
    private var readyHead = 0
    private var takers: [CheckedContinuation<Work?, Never>] = []
    /// Utensils whose thumbnail is to be made again (`rethumb`), handed out only when no drop
    /// is ready: ingests keep priority.
    private var rethumbQueue: [UUID] = []
    private var rethumbHead = 0
    /// Feeders of ``rethumbQueue`` waiting for it to shrink below their backlog.
    private var rethumbFeeders: [(backlog: Int, continuation: CheckedContinuation<Bool, Never>)] = []
    private var timerWaiter: CheckedContinuation<Void, Never>?
    /// The one waiting in ``waitForWaiters(_:)``, for each cause.
    private var watchers: [WaitCause: CheckedContinuation<Bool, Never>] = [:]
    private var changeObservers: [UUID: AsyncStream<DaemonCounters>.Continuation] = [:]
    private var stopping = false
    private(set) var counters = DaemonCounters()

    /// When a drop has settled, and when it never will (`SettlePolicy` is the rule's one home).
    private var policy: SettlePolicy
    private var neverSettledAfter: Duration { .milliseconds(Int64(policy.giveUpAfterSeconds * 1000)) }
    private let writers: OpenWriters
    private let clock = ContinuousClock()
    /// What a drop is now (the daemon resolves it beneath the held inbox).
    private let statusOf: @Sendable (Drop) throws -> FileStatus
    /// How long a drop left for a retry waits after its n-th failed try (``Backoff``).
    private let retryDelay: @Sendable (Int) -> Duration

    init(
        settleSeconds: Double, neverSettledAfter: Duration? = nil, writers: OpenWriters = OpenWriters(),
        retryDelay: @escaping @Sendable (Int) -> Duration = { Backoff.delay(afterAttempt: $0) },
        statusOf: @escaping @Sendable (Drop) throws -> FileStatus = { try InboxScanner.status(of: $0.path) }
    ) {
        var policy = SettlePolicy(settleSeconds: settleSeconds)
        if let neverSettledAfter { policy.giveUpAfterSeconds = Double(neverSettledAfter / .milliseconds(1)) / 1000 }
        self.policy = policy
        self.writers = writers
        self.retryDelay = retryDelay
        self.statusOf = statusOf
    }

    func setSettleSeconds(_ seconds: Double) {
        policy.settleSeconds = seconds
    }

    // MARK: Feeding

    /// A drop was seen (by the watcher or a scan). A known drop keeps its place; its newest
    /// path is remembered (a rename, or a new file on a reused inode), another name of the
    /// same file (a hard link) gets its turn after it, and one seen while in flight is
    /// submitted again once that ingest finishes. One held open is looked at again.
    func submit(_ drop: Drop) {
        guard !stopping else { return }
        let id = drop.status.identity
        if var entry = entries[id] {
            if case .inFlight = entry.phase {
                entry.remember(drop)
            } else if entry.drop.path != drop.path {
                if (try? currentStatus(of: entry.drop))?.identity == id {
                    entry.remember(drop)  // Both names are there: a hard link.
                } else {
                    entry.drop = drop  // Renamed.
                }
            }
            if case .heldOpen = entry.phase {
                entry.phase = .waiting(due: dueTime(for: drop.status))
                wakeTimer()
            }
            entries[id] = entry
            return
        }
        entries[id] = Entry(drop: drop, phase: .waiting(due: dueTime(for: drop.status)), firstSeen: clock.now)
        wakeTimer()
        publish()
    }

    /// When a file with this status will have been unchanged for `settle_seconds`.
    private func dueTime(for status: FileStatus) -> ContinuousClock.Instant {
        clock.now + .milliseconds(Int64(policy.secondsUntilSettled(status) * 1000))
    }

    // MARK: The timer

    /// The earliest moment a waiting drop must be looked at again, or nil when none waits.
    func earliestDue() -> ContinuousClock.Instant? {
        var earliest: ContinuousClock.Instant?
        for entry in entries.values {
            let due: ContinuousClock.Instant
            switch entry.phase {
            case .waiting(let at), .heldOpen(deadline: let at): due = at
            case .ready, .inFlight: continue
            }
            if earliest.map({ due < $0 }) ?? true { earliest = due }
        }
        return earliest
    }

    /// Suspends until a drop starts waiting (or the scheduler stops).
    func waitForWaitingDrops() async {
        if stopping || earliestDue() != nil { return }
        await withCheckedContinuation { continuation in
            timerWaiter = continuation
        }
    }

    private func wakeTimer() {
        timerWaiter?.resume()
        timerWaiter = nil
    }

    /// Looks again at every drop whose time has come: one whose size and modification time
    /// have not changed since the last look, and are older than `settle_seconds`, becomes ready, unless
    /// a writer still holds it open.
    func promoteDue() {
        let now = clock.now
        for (id, entry) in entries {
            let due: ContinuousClock.Instant
            switch entry.phase {
            case .waiting(let at), .heldOpen(deadline: let at): due = at
            case .ready, .inFlight: continue
            }
            guard due <= now else { continue }
            let status: FileStatus
            do {
                status = try currentStatus(of: entry.drop)
            } catch let error as SystemError where !error.isNotFound {
                // Not reachable beneath the inbox any more (a folder on its way became a link):
                // the engine refuses it, and says so in the log.
                entries[id]?.phase = .ready
                readyQueue.append(id)
                continue
            } catch {
                entries[id] = nil  // Gone.
                continue
            }
            guard status.identity == id else {
                entries[id] = nil  // Replaced by another file (which gets its own entry).
                continue
            }
            var updated = entry
            // Size and modification time decide (a change of links or mode alone is no write).
            let before = entry.drop.status
            let unchanged = status.kind == before.kind && status.size == before.size
                && status.modificationNanoseconds == before.modificationNanoseconds
            updated.drop.status = status
            let settled = unchanged && policy.isSettled(status)
            let held = settled && writers.holdsOpen(entry.drop.inboxPath)
            if status.kind != .regular || (settled && !held) {
                updated.phase = .ready
            } else if now - entry.firstSeen >= neverSettledAfter {
                updated.phase = .ready
                updated.neverSettled = true
            } else if held {
                updated.phase = .heldOpen(deadline: entry.firstSeen + neverSettledAfter)
            } else {
                updated.phase = .waiting(due: max(dueTime(for: status), now + .milliseconds(50)))
            }
            entries[id] = updated
            if case .ready = updated.phase { readyQueue.append(id) }
        }
        handOut()
        publish()
    }

    private func currentStatus(of drop: Drop) throws -> FileStatus {
        try statusOf(drop)
    }

    // MARK: Workers

    /// Whether no drop is in flight and no thumbnail waits to be made again (the last one taken
    /// may still be being made: its worker asks again when it is done).
    var workersAreIdle: Bool {
        counters.inFlight == 0 && rethumbHead >= rethumbQueue.count
    }

    /// The next drop to ingest, or else the next thumbnail to make again; nil once the scheduler stops.
    func take() async -> Work? {
        if stopping { return nil }
        if let work = nextWork() { return work }
        return await withCheckedContinuation { continuation in
            takers.append(continuation)
        }
    }

    private func nextWork() -> Work? {
        if let job = nextJob() { return .ingest(job) }
        guard rethumbHead < rethumbQueue.count else { return nil }
        let id = rethumbQueue[rethumbHead]
        rethumbHead += 1
        if rethumbHead == rethumbQueue.count {
            rethumbQueue.removeAll(keepingCapacity: false)
            rethumbHead = 0
        }
        let waiting = rethumbQueue.count - rethumbHead
        rethumbFeeders.removeAll { feeder in
            guard waiting < feeder.backlog else { return false }
            feeder.continuation.resume(returning: true)
            return true
        }
        return .rethumb(id)
    }

    /// Queues thumbnails to make again behind every ready drop; returns once fewer than
    /// `backlog` wait (so a feeder walking a million utensils holds a page at a time), false
    /// when the scheduler stops.
    func queueRethumbs(_ ids: [UUID], backlog: Int) async -> Bool {
        if stopping { return false }
        rethumbQueue += ids
        handOut()
        if rethumbQueue.count - rethumbHead < backlog { return true }
        return await withCheckedContinuation { continuation in
            rethumbFeeders.append((backlog, continuation))
        }
    }

    private func nextJob() -> Job? {
        while readyHead < readyQueue.count {
            let id = readyQueue[readyHead]
            readyHead += 1
            if readyHead > 1024 && readyHead * 2 > readyQueue.count {
                readyQueue.removeFirst(readyHead)
                readyHead = 0
            }
            guard var entry = entries[id], case .ready = entry.phase else { continue }
            entry.phase = .inFlight(since: clock.now)
            entries[id] = entry
            publish()
            return Job(drop: entry.drop, neverSettled: entry.neverSettled)
        }
        return nil
    }

    private func handOut() {
        while !takers.isEmpty, let work = nextWork() {
            takers.removeFirst().resume(returning: work)
        }
    }

    /// A worker is done with a drop.
    func finish(_ job: Job, _ outcome: IngestOutcome) {
        let id = job.drop.status.identity
        let later = entries[id]?.later ?? []
        entries[id]?.later = []
        defer {
            for drop in later { submit(drop) }
        }
        switch outcome {
        case .ingested, .alreadyIngested:
            counters.ingested += 1
            entries[id] = nil
            // The engine removes a drop only if it is still exactly what it read: one rewritten
            // in place meanwhile stayed, and is ingested again as what it is now.
            if !later.contains(where: { $0.path == job.drop.path }),
               let status = try? currentStatus(of: job.drop), status.identity == id {
                var kept = job.drop
                kept.status = status
                submit(kept)
            }
        case .rejected:
            counters.rejected += 1
            entries[id] = nil
        case .vanished:
            entries[id] = nil
        case .retryLater(let failure):
            if failure.kind != .takenByAnotherHost {  // Another host's work is no retry, no error.
                counters.retries += 1
                counters.lastError = failure.message
                counters.lastErrorAt = Date()
            }
            if var entry = entries[id], !stopping {
                entry.attempts += 1
                entry.phase = .waiting(due: clock.now + retryDelay(entry.attempts))
                // A drop woken early that fails for the catalog or the storage again waits out this back-off.
                entry.waitsFor = entry.wokenEarly ? nil : WaitCause(failure.kind)
                entry.wokenEarly = false
                entries[id] = entry
                wakeTimer()
                if let cause = entry.waitsFor { wakeWatcher(cause, true) }
            } else {
                entries[id] = nil
            }
        }
        publish()
    }

    // MARK: The return of the catalog or the storage

    /// Whether a drop waits because `cause` (the catalog, the storage) did not answer at its last try.
    func dropsWait(for cause: WaitCause) -> Bool {
        entries.values.contains { entry in
            guard entry.waitsFor == cause, case .waiting = entry.phase else { return false }
            return true
        }
    }

    /// Suspends until a drop waits because `cause` did not answer (true), or the scheduler
    /// stops (false). One caller at a time for each cause: the one that watches for its return.
    func waitForWaiters(_ cause: WaitCause) async -> Bool {
        if stopping { return false }
        if dropsWait(for: cause) { return true }
        return await withCheckedContinuation { continuation in
            watchers[cause]?.resume(returning: false)
            watchers[cause] = continuation
        }
    }

    private func wakeWatcher(_ cause: WaitCause, _ value: Bool) {
        watchers.removeValue(forKey: cause)?.resume(returning: value)
    }

    /// `cause` answers again: every drop waiting because it did not answer is looked at now,
    /// not when its back-off runs out (once per back-off: see `Entry.wokenEarly`). Drops waiting
    /// for another reason (settling, held open, a full disk, the other cause) keep their time.
    /// Returns how many drops were moved forward.
    @discardableResult
    func answers(_ cause: WaitCause) -> Int {
        let now = clock.now
        var moved = 0
        for (id, entry) in entries where entry.waitsFor == cause {
            guard case .waiting = entry.phase else { continue }
            entries[id]?.phase = .waiting(due: now)
            entries[id]?.waitsFor = nil
            entries[id]?.wokenEarly = true
            moved += 1
        }
        if moved > 0 { promoteDue() }
        return moved
    }

    /// When the longest-running ingest started (for the watchdog), or nil when none runs.
    func oldestInFlightStart() -> ContinuousClock.Instant? {
        var oldest: ContinuousClock.Instant?
        for entry in entries.values {
            if case .inFlight(let since) = entry.phase, oldest.map({ since < $0 }) ?? true { oldest = since }
        }
        return oldest
    }

    // MARK: Status

    func noteInbox(missing: Bool, error: String?) {
        counters.inboxMissing = missing
        if let error {
            counters.lastError = error
            counters.lastErrorAt = Date()
        }
        publish()
    }

    func noteError(_ message: String) {
        counters.lastError = message
        counters.lastErrorAt = Date()
        publish()
    }

    /// Counter snapshots, one after every change, until the scheduler stops.
    func changes() -> AsyncStream<DaemonCounters> {
        let (stream, continuation) = AsyncStream.makeStream(of: DaemonCounters.self, bufferingPolicy: .bufferingNewest(1))
        let key = UUID()
        changeObservers[key] = continuation
        continuation.yield(counters)
        if stopping { continuation.finish() }
        return stream
    }

    private func publish() {
        var queued = 0
        var inFlight = 0
        var waitingForRetry = 0
        var heldOpen = 0
        var waitingFor: [WaitCause: Int] = [:]
        for entry in entries.values {
            if case .inFlight = entry.phase { inFlight += 1 } else { queued += 1 }
            if entry.attempts > 0, case .waiting = entry.phase {
                waitingForRetry += 1
                if let cause = entry.waitsFor { waitingFor[cause, default: 0] += 1 }
            }
            if case .heldOpen = entry.phase { heldOpen += 1 }
        }
        counters.queued = queued
        counters.inFlight = inFlight
        counters.waitingForRetry = waitingForRetry
        counters.waitingForCatalog = waitingFor[.catalog] ?? 0
        counters.waitingForStorage = waitingFor[.storage] ?? 0
        counters.heldOpen = heldOpen
        for observer in changeObservers.values { observer.yield(counters) }
    }

    // MARK: Shutdown

    /// Stops handing out drops; workers finish what they hold, then `take()` returns nil.
    func stop() {
        stopping = true
        for taker in takers { taker.resume(returning: nil) }
        takers.removeAll()
        for feeder in rethumbFeeders { feeder.continuation.resume(returning: false) }
        rethumbFeeders.removeAll()
        rethumbQueue.removeAll()
        rethumbHead = 0
        wakeTimer()
        for cause in WaitCause.allCases { wakeWatcher(cause, false) }
        for observer in changeObservers.values { observer.finish() }
        changeObservers.removeAll()
    }

    var isStopping: Bool { stopping }
}
