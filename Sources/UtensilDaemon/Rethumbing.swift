import Foundation
import Logging
import UtensilControlProtocol
import UtensilCore
import UtensilStore

/// Runs `rethumb`: walks the catalog a page at a time and queues each utensil on the
/// scheduler, which hands them to the ingest workers only while no drop is ready; counts
/// what the workers report, tells `events` as it goes, and logs a summary when done. One
/// run at a time; the latest (running or finished) is what `status` shows. The walks run in
/// ``runWalks()``'s task group (``RethumbService``), never in a task of their own.
actor Rethumbing {
    private let store: UtensilStore
    private let scheduler: DropScheduler
    private let events: EventBroadcaster
    private let logger: Logger
    private var run: RethumbInfo?
    /// Thumbnails queued so far in this run; the run is done when every one is reported and
    /// the walk has ended.
    private var queued = 0
    private var walkEnded = false
    private var progressStep = 1
    /// The walks started, for ``runWalks()``.
    private nonisolated let walks: AsyncStream<Walk>
    private nonisolated let walkQueue: AsyncStream<Walk>.Continuation

    /// A walk to run: the selection and, unless `.all`, its ids.
    private struct Walk: Sendable {
        let selection: RethumbInfo.Selection
        let ids: [UUID]
    }

    /// Ids queued at a time, and how many may wait in the scheduler before the walk pauses.
    static let pageSize = 500
    static let backlog = 1000
    /// Failures the journal names one by one; past that only the summary counts them.
    static let failuresNamedInLog = 20

    init(store: UtensilStore, scheduler: DropScheduler, events: EventBroadcaster, logger: Logger) {
        self.store = store
        self.scheduler = scheduler
        self.events = events
        self.logger = logger
        (walks, walkQueue) = AsyncStream.makeStream(of: Walk.self)
    }

    /// Runs each walk started, in a task group of its own, until cancelled.
    nonisolated func runWalks() async {
        await withDiscardingTaskGroup { group in
            for await walk in walks {
                group.addTask { await self.walk(walk.selection, ids: walk.ids) }
            }
        }
    }

    /// The latest run, running or finished.
    var latest: RethumbInfo? { run }

    /// Starts a run at the current thumbnail settings: for `.all` over the whole catalog
    /// (`total` is its count now), otherwise over exactly `ids`. Returns nil while another run
    /// is going on.
    func start(_ selection: RethumbInfo.Selection, ids: [UUID], total: Int) -> RethumbInfo? {
        if let run, run.isRunning { return nil }
        let started = RethumbInfo(
            selection: selection, size: store.settings.thumbnail.size, total: total, startedAt: Date())
        run = started
        queued = 0
        walkEnded = false
        progressStep = max(1, total / 100)
        events.publish(.rethumb(started, at: Date()))
        logger.notice(
            "Making thumbnails again at \(started.size) px: \(Self.describe(selection, total: total))",
            metadata: ["MESSAGE_ID": .string(MessageID.rethumbStarted.rawValue)])
        walkQueue.yield(Walk(selection: selection, ids: ids))
        return started
    }

    /// A worker made (or, with `error`, could not make) the thumbnail of `id`.
    func finished(_ id: UUID, _ error: RethumbError?) {
        guard var current = run, current.isRunning else { return }
        current.done += 1
        switch error {
        case nil, .gone:
            break  // Deleted meanwhile: nothing left to make.
        case let error?:
            current.failed += 1
            if current.failed <= Self.failuresNamedInLog {
                // A busy catalog or a failed write is the machine's trouble, not the photo's.
                let level: Logger.Level = switch error {
                case .catalogUnavailable, .write: .error
                default: .warning
                }
                logger.log(level: level, "\(error)", metadata: ["UTENSIL_ID": .string(id.uuidString)])
            }
        }
        run = current
        if current.done % progressStep == 0 { events.publish(.rethumb(current, at: Date())) }
        finishIfDone()
    }

    /// Queues the ids given, or for `.all` the whole catalog a page at a time; the scheduler
    /// holds back the walk while ``backlog`` thumbnails wait.
    private func walk(_ selection: RethumbInfo.Selection, ids: [UUID]) async {
        defer {
            walkEnded = true
            finishIfDone()
        }
        if selection != .all {
            queued = ids.count
            _ = await scheduler.queueRethumbs(ids, backlog: Self.backlog)
            return
        }
        let store = store
        var after: UUID?
        var counted = 0
        while true {
            let last = after
            let page: Result<(ids: [UUID], missing: [UUID]), StoreError>
            do throws(StoreError) {
                page = .success(try await store.rethumbPage(after: last, limit: Self.pageSize))
            } catch {
                page = .failure(error)
            }
            let chosen: [UUID]
            switch page {
            case .success(let page):
                guard let end = page.ids.last else {
                    setTotal(counted)
                    return
                }
                after = end
                chosen = selection == .all ? page.ids : page.missing
            case .failure(let error):
                logger.error("Rethumb stopped listing the catalog: \(error); run it again once `utensilctl check` is clean")
                setTotal(counted)
                return
            }
            counted += chosen.count
            queued += chosen.count
            if counted > run?.total ?? 0 { setTotal(counted) }
            guard await scheduler.queueRethumbs(chosen, backlog: Self.backlog) else { return }
        }
    }

    private func setTotal(_ total: Int) {
        run?.total = total
        progressStep = max(1, total / 100)
    }

    private func finishIfDone() {
        guard walkEnded, var current = run, current.isRunning, current.done >= queued else { return }
        current.total = current.done
        current.finishedAt = Date()
        run = current
        events.publish(.rethumb(current, at: Date()))
        let seconds = current.finishedAt!.timeIntervalSince(current.startedAt)
        let failures = current.failed == 0
            ? "" : "; \(current.failed) could not be made (the warnings above say why; `utensilctl rethumb ID…` tries one again)"
        logger.notice(
            "Made \(current.done - current.failed) thumbnails again at \(current.size) px in \(String(format: "%.1f", seconds)) s\(failures)",
            metadata: [
                "MESSAGE_ID": .string(MessageID.rethumbFinished.rawValue),
                "RETHUMB_DONE": .stringConvertible(current.done - current.failed),
                "RETHUMB_FAILED": .stringConvertible(current.failed),
            ])
    }

    private static func describe(_ selection: RethumbInfo.Selection, total: Int) -> String {
        switch selection {
        case .all: "all \(total) utensils"
        case .missing: "the utensils missing a thumbnail, a preview or a fingerprint"
        case .ids: "\(total) utensils by id"
        }
    }
}
