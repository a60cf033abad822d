import Foundation
import Logging
import Synchronization
import UtensilConfig
import UtensilCore
import UtensilIngest
import UtensilMetrics
import UtensilStorage
import UtensilStore
import UtensilWatch

/// Feeds the scheduler: a full scan at start-up, the watcher's events as they come, a full
/// rescan on overflow, when the inbox comes back, and every `rescan_seconds` as a safety net.
final class InboxFeeder: Sendable {
    let settings: IngestSettings
    let scheduler: DropScheduler
    /// Kept current by the inotify watcher (poll mode leaves it empty: settle alone decides).
    let writers: OpenWriters
    let pool: IngestThreads
    let logger: Logger
    let strategy: WatchStrategy
    private let scanner: InboxScanner
    private let source: Mutex<(any InboxEventSource)?> = Mutex(nil)
    private let rescanSeconds: Mutex<Double>
    private let stopped = Atomic<Bool>(false)
    private let settleSeconds: Double
    private let metrics: DaemonMetrics?

    init(
        settings: IngestSettings, watch: WatchMode, rescanSeconds: Double, settleSeconds: Double,
        scheduler: DropScheduler, writers: OpenWriters = OpenWriters(), pool: IngestThreads, logger: Logger,
        metrics: DaemonMetrics? = nil
    ) {
        self.metrics = metrics
        self.writers = writers
        self.settleSeconds = settleSeconds
        self.settings = settings
        self.scheduler = scheduler
        self.pool = pool
        self.logger = logger
        self.rescanSeconds = Mutex(rescanSeconds)
        self.strategy = WatchStrategyResolver.resolve(requested: watch.rawValue, inbox: settings.inbox.bytes)
        self.scanner = InboxScanner(settings: settings)
    }

    var strategyDescription: String {
        switch strategy {
        case .inotify: "inotify"
        case .poll(let reason): "polling: \(reason)"
        }
    }

    func setRescanSeconds(_ seconds: Double) { rescanSeconds.withLock { $0 = seconds } }

    /// Starts watching, then queues the start-up scan (so nothing falls between the two).
    func start() async throws {
        let excluded = Set(scanner.excludedFolders.map { FolderIdentity(device: $0.device, inode: $0.inode) })
        let skip: @Sendable ([UInt8]) -> Bool = { DropVisibility.isInvisible(name: $0, isDirectory: true) }
        do throws(WatchError) {
            let watcher: any InboxEventSource
            if case .inotify = strategy {
                watcher = try InboxWatcher(
                    inbox: settings.inbox.bytes, skipFolder: skip, excluded: excluded, writers: writers)
            } else {
                // In poll mode the inbox is listed every settle_seconds (at least every half second).
                watcher = try PollingWatcher(
                    inbox: settings.inbox.bytes, skipFolder: skip, excluded: excluded,
                    interval: .milliseconds(Int64(max(settleSeconds, 0.5) * 1000)))
            }
            source.withLock { $0 = watcher }
        } catch {
            logger.error(
                "Cannot watch the inbox \(settings.inbox): \(error)",
                metadata: .journal([.messageID: .id(.inboxUnavailable)]))
            await scheduler.noteInbox(missing: true, error: "cannot watch the inbox: \(error)")
        }
        await scanAll(reason: "start-up")
    }

    /// Handles watcher events and periodic rescans until stopped (or cancelled). Without a
    /// watcher (it could not be started) the rescans alone go on.
    func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.runPeriodicRescans() }
            if let events = source.withLock({ $0 })?.events() {
                for await event in events {
                    await handle(event)
                }
            }
            if stopped.load(ordering: .relaxed) { group.cancelAll() }
        }
    }

    func stop() {
        stopped.store(true, ordering: .relaxed)
        source.withLock { $0 }?.stop()
    }

    private func handle(_ event: WatchEvent) async {
        switch event {
        case .candidate(let path):
            if let drop = scanner.drop(at: RawPath(bytes: path)) { await scheduler.submit(drop) }
        case .folderAppeared(let path):
            let folder = RawPath(bytes: path)
            if let drop = scanner.drop(at: folder) {
                await scheduler.submit(drop)  // A folder named like a photo is itself a drop.
            } else {
                let drops = await pool.run { [scanner] in (try? scanner.scan(below: folder)) ?? [] }
                for drop in drops { await scheduler.submit(drop) }
            }
        case .overflow:
            logger.warning("The inotify queue overflowed; rescanning the inbox")
            metrics?.recordWatcherOverflow()
            await scanAll(reason: "overflow")
        case .unwatched(let problem):
            let seconds = rescanSeconds.withLock { $0 }
            logger.warning(
                "Part of the inbox is not watched: \(problem) (now every \(Int(seconds.rounded())) seconds)",
                metadata: .journal([.messageID: .id(.inboxPartlyWatched)]))
            await scheduler.noteError("part of the inbox is not watched: \(problem)")
        case .inboxGone:
            logger.error(
                "The inbox \(settings.inbox) is gone (deleted, moved or unmounted); waiting for it to come back",
                metadata: .journal([.messageID: .id(.inboxUnavailable)]))
            await scheduler.noteInbox(missing: true, error: "the inbox \(settings.inbox) is missing")
        case .inboxBack:
            logger.notice(
                "The inbox \(settings.inbox) is back; rescanning it",
                metadata: .journal([.messageID: .id(.inboxUnavailable)]))
            await scheduler.noteInbox(missing: false, error: nil)
            await scanAll(reason: "inbox back")
        }
    }

    private func runPeriodicRescans() async {
        while !Task.isCancelled && !stopped.load(ordering: .relaxed) {
            let seconds = rescanSeconds.withLock { $0 }
            do {
                try await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
            } catch {
                return
            }
            await scanAll(reason: "periodic")
        }
    }

    /// Lists the whole inbox (on a blocking thread) and submits every drop.
    func scanAll(reason: String) async {
        metrics?.recordRescan(reason: reason)
        let result = await pool.run { [scanner] in Result { () throws(SystemError) in try scanner.scan() } }
        switch result {
        case .success(let drops):
            logger.debug("Scanned the inbox (\(reason)): \(drops.count) entries")
            for drop in drops { await scheduler.submit(drop) }
        case .failure(let error):
            logger.error(
                "Cannot scan the inbox \(settings.inbox): \(error)",
                metadata: .journal([.messageID: .id(.inboxUnavailable)]))
            await scheduler.noteInbox(missing: error.isNotFound, error: "cannot scan the inbox: \(error)")
        }
    }
}
