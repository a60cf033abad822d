import Foundation
import Glibc
import Logging
import ServiceLifecycle
import Synchronization
import UnixSignals
import UtensilCatalog
import UtensilCatalogModel
import UtensilConfig
import UtensilControlProtocol
import UtensilControlServer
import UtensilCore
import UtensilIngest
import UtensilMetrics
import UtensilSystemd
import UtensilWatch
import UtensilWeb

/// The long-running daemon: watches the inbox, schedules ingests on `workers` threads,
/// keeps systemd informed, reloads on SIGHUP, serves the control socket and the web gallery.
///
/// Built the way hummingbird builds an application: ``makeServiceGroup()`` runs the start-up
/// sequence (the one `--oneshot` shares), binds the control socket, queues the start-up scan
/// and returns one `ServiceGroup` of the daemon's services, which tests and `utensild` run
/// alike. SIGTERM and SIGINT shut it down gracefully, in the order stated there.
public struct UtensilDaemon: Sendable {
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

    /// Opens the catalog (reconciling what a crash left in flight), binds the control socket,
    /// starts watching and queues the start-up scan, then returns the daemon's services.
    public func makeServiceGroup() async throws -> ServiceGroup {
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
        let metrics = DaemonMetrics(host: configuration.effectiveHostName)
        let memory = MemoryBudget(bytes: configuration.memoryBudget)
        let engines = EngineHolder(IngestEngine(settings: settings, catalog: catalog, logger: logger, memory: memory))
        let pool = BlockingPool()
        let committer = GroupCommitter(engines: engines, pool: pool, metrics: metrics)
        let feeder = InboxFeeder(
            settings: settings, watch: configuration.watch, rescanSeconds: configuration.rescanSeconds,
            settleSeconds: configuration.settleSeconds, scheduler: scheduler, writers: writers, pool: pool,
            logger: logger, metrics: metrics)
        let reporter = StatusReporter(
            inbox: configuration.inbox, catalog: catalog, scheduler: scheduler,
            link: link, logger: logger)
        let hooks = HookRunner(
            settings: HookRunner.Settings(configuration), socket: configuration.controlSocket,
            host: configuration.effectiveHostName, rejectedFolder: configuration.rejected,
            environment: ProcessInfo.processInfo.environment, logger: logger, metrics: metrics)
        let events = EventBroadcaster(hooks: hooks)
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
            listen: configuration.webListen, extraHosts: configuration.webHosts,
            activatedDescriptor: SocketActivation.descriptor(named: "web", environment: ProcessInfo.processInfo.environment),
            backend: WebGalleryBackend(handler: handler, settings: settings, usersFile: configuration.webUsersFile),
            metrics: Self.galleryMetrics(metrics, scheduler: scheduler, catalog: catalog, memory: memory, pool: pool),
            logger: logger)
        let server = ControlServer(socket: listening, logger: logger) { line, peer in await handler.handle(line, peer: peer) }
        // Decided before any drop can be ingested, so that a first preview cannot be taken for
        // a state folder of an earlier version.
        let previewsNeverMade: Bool
        do {
            previewsNeverMade = try store.previewsNeverMade()
        } catch {
            previewsNeverMade = false
            logger.warning("Cannot tell whether previews are missing (\(error)); `utensilctl rethumb --missing` makes them")
        }
        try await feeder.start()

        let configuration = configuration
        let workers = IngestWorkers(
            count: configuration.effectiveWorkers, scheduler: scheduler, engines: engines, pool: pool,
            committer: committer, events: events, handler: handler, rethumbing: rethumbing, metrics: metrics)
        let announcer = Announcer(link: link, logger: logger) {
            reporter.ready()
            onReady()
            logger.notice(
                "utensild is watching \(configuration.inbox) with \(workers.count) workers (\(feeder.strategyDescription))")
        }
        // Every service starts at once. On SIGTERM or SIGINT they stop one at a time from the
        // bottom of this list up, each once the one below it has returned:
        let services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            // 8. STATUS= and WATCHDOG=1, to the very end.
            .init(service: DaemonLoop {
                await withDiscardingTaskGroup { group in
                    group.addTask { await reporter.runStatus() }
                    group.addTask { await reporter.runWatchdog() }
                }
            }, serviceName: "systemd status"),
            // 7. The control socket: answers until everything that changes state has stopped.
            .init(service: DaemonLoop {
                do {
                    try await server.run()
                } catch is CancellationError {
                    // Shut down.
                } catch {
                    logger.error("The control socket \(configuration.controlSocket) failed: \(error)")
                }
            }, serviceName: "control socket"),
            // 6. The web gallery.
            .init(service: DaemonLoop { await Self.runGallery(gallery, listen: configuration.webListen, logger: logger) },
                  serviceName: "web gallery"),
            // 5½. Previews for the utensils of a version without them (once, at start).
            .init(service: DaemonLoop {
                if previewsNeverMade { await Self.makeMissingPreviews(store: store, rethumbing: rethumbing, pool: pool, logger: logger) }
            }, serviceName: "preview upgrade"),
            // 5. The trash purger.
            .init(service: DaemonLoop { await TrashPurger(store: store, pool: pool, logger: logger).run() },
                  serviceName: "trash purger"),
            // 4. SIGHUP reloads.
            .init(service: DaemonLoop {
                await self.runReloads(
                    scheduler: scheduler, engines: engines, feeder: feeder, catalog: catalog, hooks: hooks, link: link)
            }, serviceName: "configuration reloads"),
            // 3b. The ingest hooks: those running are stopped once the last ingest is reported.
            .init(service: DaemonLoop { await hooks.run() }, serviceName: "ingest hooks"),
            // 3. The ingest workers: no drop is handed out any more, those in flight finish.
            .init(service: workers, serviceName: "ingest workers"),
            // 2. The watcher and the rescans: no new drop is seen.
            .init(service: WatchingService(feeder: feeder), serviceName: "inbox watcher"),
            // 1. READY=1 at start; first to hear of the shutdown: STOPPING=1.
            .init(service: announcer, serviceName: "systemd readiness"),
        ]
        return ServiceGroup(configuration: ServiceGroupConfiguration(
            services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
    }

    /// One ingest worker: takes a settled drop and prepares it (read, hash, decode, write) on a
    /// blocking thread, then hands it to the group committer and takes the next drop at once;
    /// each outcome is reported once its commit is durable. While no drop is ready it makes
    /// the thumbnails `rethumb` queued, one at a time.
    static func runWorker(
        scheduler: DropScheduler, engines: EngineHolder, pool: BlockingPool, committer: GroupCommitter,
        events: EventBroadcaster, handler: ControlRequestHandler, rethumbing: Rethumbing, metrics: DaemonMetrics? = nil
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
                let started = ContinuousClock.now
                let step = await pool.run { () -> IngestStep in
                    if job.neverSettled {
                        return .finished(engine.reject(job.drop, SettlePolicy.neverSettled))
                    }
                    return engine.prepare(job.drop)
                }
                switch step {
                case .finished(let outcome):
                    metrics?.record(outcome, after: ContinuousClock.now - started)
                    await report(job, outcome, scheduler: scheduler, events: events, handler: handler)
                case .readyToCommit(let prepared):
                    commits.addTask {
                        let outcome = await committer.commit(prepared)
                        metrics?.record(outcome, after: ContinuousClock.now - started)
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
        // The one text form of a file name (`\xFF` for a byte that is not UTF-8), as `rejected` shows it.
        let inboxFile = FileNameEscaping.escaped(job.drop.inboxPath)
        switch outcome {
        case .ingested(let record):
            events.publish(.ingested(handler.info(record), inboxFile: inboxFile, at: Date()))
        case .rejected(let rejection, let rejectedAs):
            events.publish(.rejected(
                inboxFile: inboxFile, reason: rejection.reason.rawValue, message: rejection.message, at: Date()),
                rejectedAs: rejectedAs)
        case .alreadyIngested, .retryLater, .vanished:
            break
        }
    }

    /// `GET /metrics` and the gallery's request counts: the gauges are read from the scheduler,
    /// the catalog (counted off the cooperative pool) and the memory budget at each scrape.
    static func galleryMetrics(
        _ metrics: DaemonMetrics, scheduler: DropScheduler, catalog: Catalog, memory: MemoryBudget, pool: BlockingPool
    ) -> GalleryMetrics {
        GalleryMetrics(factory: metrics.factory, contentType: DaemonMetrics.contentType) {
            let counters = await scheduler.counters
            let utensils = await pool.run { try? catalog.count() }
            let usage = memory.usage
            return metrics.exposition(DaemonMetrics.Sample(
                queued: counters.queued, inFlight: counters.inFlight, utensils: utensils,
                memoryHeldBytes: usage.heldBytes, memoryBudgetBytes: memory.bytes, memoryWaits: usage.waits))
        }
    }

    /// The web gallery, until cancelled; a listener that cannot be opened is logged and the
    /// daemon goes on ingesting (the gallery is a window onto the catalog, not its keeper).
    /// After an upgrade from a version without previews (`previews/` was empty at start, with
    /// utensils in the catalog), starts `rethumb --missing` in the background, which makes each
    /// utensil's preview (and any missing thumbnail) behind the drops.
    static func makeMissingPreviews(store: UtensilStore, rethumbing: Rethumbing, pool: BlockingPool, logger: Logger) async {
        let found = await pool.run { () -> Result<[UUID], StoreError> in
            Result { () throws(StoreError) in try store.missingThumbnails() }
        }
        switch found {
        case .success(let ids) where !ids.isEmpty:
            logger.notice(
                "\(store.settings.previews) is empty: making the previews of the \(ids.count) utensils added before previews existed, in the background (rethumb --missing)")
            _ = await rethumbing.start(.missing, ids: ids, total: ids.count)
        case .success:
            break
        case .failure(let error):
            logger.warning("Cannot tell whether previews are missing (\(error)); `utensilctl rethumb --missing` makes them")
        }
    }

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
        scheduler: DropScheduler, engines: EngineHolder, feeder: InboxFeeder, catalog: Catalog, hooks: HookRunner,
        link: SystemdLink
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
                hooks.update(HookRunner.Settings(applied))
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
