import Foundation
import Glibc
import Logging
import ServiceLifecycle
import Synchronization
import UnixSignals
import UtensilCatalog
import UtensilConfig
import UtensilControlProtocol
import UtensilControlServer
import UtensilCore
import UtensilIngest
import UtensilSystemd
import UtensilWatch
import UtensilWeb

/// The long-running daemon: watches the inbox, schedules ingests on `workers` threads,
/// keeps systemd informed, reloads on SIGHUP, and on graceful shutdown lets in-flight
/// ingests finish before returning.
public struct UtensilDaemon: Service {
    /// Re-reads the configuration from the same file, environment and flags (for SIGHUP).
    public typealias ConfigurationReader = @Sendable () throws -> UtensilConfiguration

    let configuration: UtensilConfiguration
    let readConfiguration: ConfigurationReader
    let logger: Logger
    let notifier: SystemdNotifier?
    /// Called once the start-up scan is queued (tests and the control socket use it).
    let onReady: @Sendable () -> Void

    public init(
        configuration: UtensilConfiguration, readConfiguration: @escaping ConfigurationReader, logger: Logger,
        notifier: SystemdNotifier? = SystemdNotifier.fromEnvironment(), onReady: @escaping @Sendable () -> Void = {}
    ) {
        self.configuration = configuration
        self.readConfiguration = readConfiguration
        self.logger = logger
        self.notifier = notifier
        self.onReady = onReady
    }

    public func run() async throws {
        MemoryBudget.returnLargeAllocationsToTheSystem()
        let settings = IngestSettings(configuration)
        let catalog = try StartUp.prepare(settings: settings, logger: logger)
        MemoryBudget.returnFreeMemoryToTheSystem()

        let scanner = InboxScanner(settings: settings)
        let writers = OpenWriters()
        let scheduler = DropScheduler(
            settleSeconds: configuration.settleSeconds, writers: writers,
            statusOf: { drop in try scanner.status(of: drop) })
        let link = SystemdLink(notifier)
        let memory = MemoryBudget(bytes: configuration.memoryBudget)
        let engines = EngineHolder(IngestEngine(settings: settings, catalog: catalog, logger: logger, memory: memory))
        let pool = BlockingPool()
        let committer = GroupCommitter(engines: engines, pool: pool)
        let feeder = InboxFeeder(
            settings: settings, watch: configuration.watch, rescanSeconds: configuration.rescanSeconds,
            settleSeconds: configuration.settleSeconds, scheduler: scheduler, writers: writers, pool: pool,
            logger: logger)
        let reporter = StatusReporter(
            inbox: configuration.inbox, catalog: catalog, scheduler: scheduler,
            link: link, logger: logger)
        let workerCount = configuration.effectiveWorkers
        let events = EventBroadcaster()
        let listening = try ListeningSocket.fromSystemd(
            environment: ProcessInfo.processInfo.environment, path: configuration.controlSocket)
            ?? ListeningSocket.bind(path: configuration.controlSocket, mode: mode_t(configuration.socketMode))
        var socketStatus = stat()
        let socketGroup = stat(configuration.controlSocket, &socketStatus) == 0 ? socketStatus.st_gid : getegid()
        let store = UtensilStore(settings: settings, catalog: catalog, logger: logger)
        let rethumbing = Rethumbing(engines: engines, scheduler: scheduler, pool: pool, events: events, logger: logger)
        let handler = ControlRequestHandler(
            store: store, scheduler: scheduler, rethumbing: rethumbing, events: events, pool: pool, startedAt: Date(),
            policy: ChangePolicy(socketGroup: socketGroup), watching: feeder.strategyDescription,
            audit: ControlAudit(logger: logger), thumbnailCache: ThumbnailCache())
        let gallery = GalleryServer(
            listen: configuration.webListen,
            activatedDescriptor: SocketActivation.descriptor(named: "web", environment: ProcessInfo.processInfo.environment),
            backend: WebGalleryBackend(handler: handler, settings: settings, usersFile: configuration.webUsersFile),
            logger: logger)
        let server = ControlServer(socket: listening, logger: logger) { line, peer in await handler.handle(line, peer: peer) }

        try await withGracefulShutdownHandler {
            try await withThrowingDiscardingTaskGroup { group in
                try await feeder.start()
                group.addTask { await feeder.run() }
                group.addTask { await Self.runTimer(scheduler) }
                group.addTask { await reporter.runStatus() }
                group.addTask { await reporter.runWatchdog() }
                group.addTask {
                    await TrashPurger(store: store, pool: pool, logger: logger).run()
                }
                group.addTask {
                    do {
                        try await server.run()
                    } catch is CancellationError {
                        // Graceful shutdown.
                    } catch {
                        logger.error("The control socket \(configuration.controlSocket) failed: \(error)")
                    }
                }
                group.addTask { await Self.runGallery(gallery, listen: configuration.webListen, logger: logger) }
                group.addTask { await self.runReloads(
                        scheduler: scheduler, engines: engines, feeder: feeder, catalog: catalog, link: link) }
                reporter.ready()
                onReady()
                logger.notice(
                    "utensild is watching \(configuration.inbox) with \(workerCount) workers (\(feeder.strategyDescription))")
                // Ingest workers; when they have all finished (after a graceful shutdown), the
                // other loops are cancelled.
                await withDiscardingTaskGroup { workers in
                    for _ in 0..<workerCount {
                        workers.addTask {
                            await Self.runWorker(
                                scheduler: scheduler, engines: engines, pool: pool, committer: committer, events: events,
                                handler: handler, rethumbing: rethumbing)
                        }
                    }
                }
                feeder.stop()
                events.finishAll()
                group.cancelAll()
            }
        } onGracefulShutdown: {
            link.send { try $0.stopping(status: "Stopping: finishing the ingests in flight") }
            logger.notice("Stopping: no new drops are taken; ingests in flight finish first")
            feeder.stop()
            Task { await scheduler.stop() }
        }
        logger.notice("utensild stopped")
    }

    /// One ingest worker: takes a settled drop and prepares it (read, hash, decode, write) on a
    /// blocking thread, then hands it to the group committer and takes the next drop at once;
    /// each outcome is reported once its commit is durable. While no drop is ready it makes
    /// the thumbnails `rethumb` queued, one at a time.
    static func runWorker(
        scheduler: DropScheduler, engines: EngineHolder, pool: BlockingPool, committer: GroupCommitter,
        events: EventBroadcaster, handler: ControlRequestHandler, rethumbing: Rethumbing
    ) async {
        await withDiscardingTaskGroup { commits in
            while let work = await scheduler.take() {
                let engine = engines.current
                guard case .ingest(let job) = work else {
                    if case .rethumb(let id) = work {
                        let error = await pool.run { () -> RethumbError? in
                            do throws(RethumbError) {
                                try engine.store.rethumb(id: id, memory: engine.memory)
                                return nil
                            } catch {
                                return error
                            }
                        }
                        handler.thumbnailCache.remove(id)
                        await rethumbing.finished(id, error)
                    }
                    continue
                }
                let step = await pool.run { () -> IngestStep in
                    if job.neverSettled {
                        return .finished(engine.reject(job.drop, SettlePolicy.neverSettled))
                    }
                    return engine.prepare(job.drop)
                }
                switch step {
                case .finished(let outcome):
                    await report(job, outcome, scheduler: scheduler, events: events, handler: handler)
                case .readyToCommit(let prepared):
                    commits.addTask {
                        let outcome = await committer.commit(prepared)
                        await report(job, outcome, scheduler: scheduler, events: events, handler: handler)
                    }
                }
            }
        }
    }

    static func report(
        _ job: DropScheduler.Job, _ outcome: IngestOutcome, scheduler: DropScheduler, events: EventBroadcaster,
        handler: ControlRequestHandler
    ) async {
        await scheduler.finish(job, outcome)
        let inboxFile = job.drop.inboxPath.lossyText
        switch outcome {
        case .ingested(let record):
            events.publish(.ingested(handler.info(record), inboxFile: inboxFile, at: Date()))
        case .rejected(let rejection, _):
            events.publish(.rejected(
                inboxFile: inboxFile, reason: rejection.reason.rawValue, message: rejection.message, at: Date()))
        case .alreadyIngested, .retryLater, .vanished:
            break
        }
    }

    /// The web gallery, until cancelled; a listener that cannot be opened is logged and the
    /// daemon goes on ingesting (the gallery is a window onto the catalog, not its keeper).
    static func runGallery(_ gallery: GalleryServer, listen: WebListen, logger: Logger) async {
        guard listen != .off else { return }
        do {
            try await gallery.run { address in logger.notice("The web gallery listens on \(address)") }
        } catch is CancellationError {
            // Graceful shutdown.
        } catch {
            logger.error("The web gallery could not listen on \(listen): \(error); change web_listen, or set it to \"\" to turn the gallery off")
        }
    }

    /// Wakes the scheduler whenever a settling drop is due, and at least every half second
    /// while any drop waits (a drop seen during a long retry back-off is due sooner than the
    /// deadline the timer slept towards); sleeps while none waits.
    static func runTimer(_ scheduler: DropScheduler) async {
        let longestNap = Duration.milliseconds(500)
        while !Task.isCancelled, await !scheduler.isStopping {
            if let due = await scheduler.earliestDue() {
                let wake = min(due, ContinuousClock.now + longestNap)
                try? await Task.sleep(until: wake, tolerance: .milliseconds(20), clock: .continuous)
            } else {
                await scheduler.waitForWaitingDrops()
            }
            await scheduler.promoteDue()
        }
    }

    /// SIGHUP: re-read the configuration, apply what can change without a restart.
    func runReloads(
        scheduler: DropScheduler, engines: EngineHolder, feeder: InboxFeeder, catalog: Catalog, link: SystemdLink
    ) async {
        let signals = await UnixSignalsSequence(trapping: .sighup)
        var current = configuration
        for await _ in signals {
            link.send { try $0.reloading() }
            do {
                let fresh = try readConfiguration()
                let changed = current.changedKeys(comparedTo: fresh)
                let needRestart = changed.filter { !$0.isReloadable }
                var applied = current
                for key in changed where key.isReloadable { applied.take(key, from: fresh) }
                var reloadLogger = logger
                reloadLogger.logLevel = Logger.Level(rawValue: applied.logLevel.rawValue) ?? .info
                engines.replace(IngestEngine(
                    settings: IngestSettings(applied), catalog: catalog, logger: reloadLogger, memory: engines.current.memory))
                await scheduler.setSettleSeconds(applied.settleSeconds)
                feeder.setRescanSeconds(applied.rescanSeconds)
                current = applied
                let appliedNames = changed.filter(\.isReloadable).map(\.rawValue)
                let summary = appliedNames.isEmpty ? "nothing changed" : "applied " + appliedNames.joined(separator: ", ")
                let restart = needRestart.isEmpty
                    ? "" : "; a restart is needed for " + needRestart.map(\.rawValue).joined(separator: ", ")
                logger.notice("Reloaded the configuration: \(summary)\(restart)")
            } catch {
                logger.error("Reloading the configuration failed, keeping the current one: \(error)")
                await scheduler.noteError("configuration reload failed: \(error)")
            }
            link.send { try $0.ready() }
        }
    }
}

/// The engine in use; replaced on reload (the catalog stays the same).
final class EngineHolder: Sendable {
    private let engine: Mutex<IngestEngine>

    init(_ engine: IngestEngine) { self.engine = Mutex(engine) }

    var current: IngestEngine { engine.withLock { $0 } }
    func replace(_ new: IngestEngine) { engine.withLock { $0 = new } }
}
