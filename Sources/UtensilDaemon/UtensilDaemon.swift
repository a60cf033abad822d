import Foundation
import Glibc
import Logging
import ServiceLifecycle
import Synchronization
import UnixSignals
import UtensilCatalogModel
import UtensilConfig
import UtensilControlProtocol
import UtensilControlServer
import UtensilCore
import UtensilIngest
import UtensilMetrics
import UtensilStore
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
    /// Opens the backends the configuration chose (see ``Backends``).
    let openBackends: Backends.Opener
    /// The web gallery's bounds; nil: those for this process's descriptor limit (``WebLimits/current``).
    let webLimits: WebLimits?

    /// - Parameters:
    ///   - openBackends: opens the catalog, its change feed and the storage the configuration
    ///     chose (the executable's, which runs a PostgreSQL pool of connections for as long as
    ///     the daemon runs); by default ``Backends/local(_:logger:faults:)``.
    ///   - webLimits: the gallery's bounds (tests pass small ones); nil: ``WebLimits/current``.
    public init(
        configuration: UtensilConfiguration, readConfiguration: @escaping ConfigurationReader, logger: Logger,
        openBackends: @escaping Backends.Opener = { settings, logger in try Backends.local(settings, logger: logger) },
        notifier: SystemdNotifier? = SystemdNotifier.fromEnvironment(), webLimits: WebLimits? = nil,
        onReady: @escaping @Sendable () -> Void = {}
    ) {
        self.webLimits = webLimits
        self.openBackends = openBackends
        self.configuration = configuration
        self.readConfiguration = readConfiguration
        self.logger = logger
        self.notifier = notifier
        self.onReady = onReady
    }

    /// Opens the catalog (reconciling what a crash left in flight), binds the control socket,
    /// starts watching and queues the start-up scan, then returns the daemon's services.
    public func makeServiceGroup() async throws -> ServiceGroup {
        let settings = IngestSettings(configuration)
        // The one store: every front door below is handed this instance, and a reload
        // replaces its settings.
        let backends = try openBackends(settings, logger)
        let changeFeed = backends.changeFeed
        let pool = IngestThreads()  // The ingest engine's threads, for its callers alone.
        // Start-up recovery blocks (it reaches the catalog and the storage through the engine's
        // bridge), so it runs on the engine's threads, as `--oneshot` runs it on its own.
        let (logger, catalog, storage) = (logger, backends.catalog, backends.storage)
        let store = try await pool.run { () -> Result<UtensilStore, any Error> in
            Result { try StartUp.prepare(settings: settings, catalog: catalog, storage: storage, logger: logger) }
        }.get()
        MemoryBudget.returnFreeMemoryToTheSystem()

        let scanner = InboxScanner(settings: settings)
        let writers = OpenWriters()
        let retryAfter = FaultInjection.fromEnvironment().retryAfter
        let scheduler = DropScheduler(
            settleSeconds: configuration.settleSeconds, writers: writers,
            retryDelay: { attempt in retryAfter ?? Backoff.delay(afterAttempt: attempt) },
            statusOf: { drop in try scanner.status(of: drop) })
        let link = SystemdLink(notifier)
        let metrics = DaemonMetrics(host: configuration.effectiveHostName)
        let memory = MemoryBudget(bytes: configuration.memoryBudget)
        let engine = IngestEngine(store: store, memory: memory)
        let committer = GroupCommitter(engine: engine, pool: pool, metrics: metrics)
        let feeder = InboxFeeder(
            settings: settings, watch: configuration.watch, rescanSeconds: configuration.rescanSeconds,
            settleSeconds: configuration.settleSeconds, scheduler: scheduler, writers: writers, pool: pool,
            logger: logger, metrics: metrics)
        let reporter = StatusReporter(
            inbox: configuration.inbox, store: store, scheduler: scheduler,
            link: link, logger: logger)
        let hooks = HookRunner(
            settings: HookRunner.Settings(configuration), socket: configuration.controlSocket,
            host: configuration.effectiveHostName, rejectedFolder: configuration.rejected,
            environment: ProcessInfo.processInfo.environment, logger: logger, metrics: metrics)
        let events = EventBroadcaster(log: backends.catalog, hooks: hooks, host: configuration.effectiveHostName)
        let listening = try ListeningSocket.fromSystemd(
            environment: ProcessInfo.processInfo.environment, path: configuration.controlSocket)
            ?? ListeningSocket.bind(path: configuration.controlSocket, mode: mode_t(configuration.socketMode))
        var socketStatus = stat()
        let socketGroup = stat(configuration.controlSocket, &socketStatus) == 0 ? socketStatus.st_gid : getegid()
        let heart = HostHeart(
            name: configuration.effectiveHostName, startedAt: Date(), registry: store, scheduler: scheduler)
        let thumbnailCache = ThumbnailCache()
        let rethumbing = Rethumbing(store: store, scheduler: scheduler, events: events, logger: logger)
        let pulse = Pulse { [store] () async -> Result<Int, StoreError> in
            do throws(StoreError) { return .success(try await store.count()) } catch { return .failure(error) }
        }
        // The catalog has just answered: a status asked during an outage that follows shows
        // this count, not 0, until it answers again.
        _ = await pulse.read()
        let storagePulse = Pulse { [store] in await store.askStorage() }
        let handler = ControlRequestHandler(
            store: store, scheduler: scheduler, rethumbing: rethumbing, events: events, startedAt: heart.startedAt,
            policy: ChangePolicy(socketGroup: socketGroup), watching: feeder.strategyDescription,
            audit: ControlAudit(logger: logger), thumbnailCache: thumbnailCache, heart: heart, pulse: pulse,
            storagePulse: storagePulse)
        let gallery = GalleryServer(
            listen: configuration.webListen, extraHosts: configuration.webHosts, limits: webLimits ?? .current,
            activatedDescriptor: SocketActivation.descriptor(named: "web", environment: ProcessInfo.processInfo.environment),
            backend: WebGalleryBackend(
                handler: handler, store: store, storagePulse: storagePulse,
                usersFile: configuration.webUsersFile),
            metrics: Self.galleryMetrics(
                metrics, scheduler: scheduler, pulse: pulse, memory: memory, pool: backends.catalog as? any CatalogPoolReporting),
            logger: logger)
        let server = ControlServer(socket: listening, logger: logger) { line, peer in await handler.handle(line, peer: peer) }
        // Decided before any drop can be ingested, so that a first preview cannot be taken for
        // a state folder of an earlier version.
        let previewsNeverMade: Bool
        do {
            previewsNeverMade = try await store.previewsNeverMade()
        } catch {
            previewsNeverMade = false
            logger.warning("Cannot tell whether previews are missing (\(error)); `utensilctl rethumb --missing` makes them")
        }
        try await feeder.start()

        let configuration = configuration
        let workers = IngestWorkers(
            count: configuration.effectiveWorkers, scheduler: scheduler, engine: engine, pool: pool,
            committer: committer, events: events, handler: handler, rethumbing: rethumbing, metrics: metrics)
        let announcer = Announcer(link: link, logger: logger) {
            reporter.ready()
            onReady()
            logger.notice(
                "utensild is watching \(configuration.inbox) with \(workers.count) workers (\(feeder.strategyDescription))")
        }
        // Every service starts at once. On SIGTERM or SIGINT they stop one at a time from the
        // bottom of this list up, each once the one below it has returned (a service with
        // nothing to do is left out: systemd not listening, the gallery or the trash off):
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
        // 8. STATUS= and WATCHDOG=1, to the very end.
        if notifier != nil {
            services.append(.init(service: SystemdStatusService(reporter: reporter), serviceName: "systemd status"))
        }
        // 7½. This host's heartbeat, beating (on a shared catalog) until everything below has
        //     stopped: its last beat says it stopped, with the final counts.
        services.append(.init(
            service: HostHeartbeatService(
                heart: heart, interval: HostHeartbeatService.interval(sharesCatalog: changeFeed != nil), logger: logger),
            serviceName: "host heartbeat"))
        // 7¼. The catalog's event log: this host's events numbered and every host's shown (the
        //     other hosts woken through the change feed); the last are added once the workers
        //     have stopped.
        services.append(.init(
            service: EventLogService(
                log: backends.catalog, feed: changeFeed, events: events, thumbnailCache: thumbnailCache, metrics: metrics,
                logger: logger),
            serviceName: "event log"))
        // 7. The control socket: answers until everything that changes state has stopped. If it
        //    fails, the daemon goes on ingesting (so its end is ignored).
        services.append(.init(
            service: ControlSocketService(server: server, path: configuration.controlSocket, logger: logger),
            successTerminationBehavior: .ignore, serviceName: "control socket"))
        // 6. The web gallery (likewise: one that cannot listen is logged).
        if configuration.webListen != .off {
            services.append(.init(
                service: GalleryService(gallery: gallery, listen: configuration.webListen, logger: logger),
                successTerminationBehavior: .ignore, serviceName: "web gallery"))
        }
        // 5½. `rethumb`'s walks, and the previews of a version without them (once, at start);
        //     after the workers, whose stopped scheduler ends a walk waiting for room.
        services.append(.init(
            service: RethumbService(
                rethumbing: rethumbing, makeMissingPreviews: previewsNeverMade, store: store, logger: logger),
            serviceName: "rethumb"))
        // 5. The trash purger.
        if store.settings.trashDays > 0 {
            services.append(.init(service: TrashPurger(store: store, logger: logger), serviceName: "trash purger"))
        }
        // 4½. The storage sweeper, where other hosts' leftovers can be.
        if !store.keepsRenditionsInStateFolder || store.settings.sharesStateFolder {
            services.append(.init(service: StorageSweeper(store: store, logger: logger), serviceName: "storage sweeper"))
        }
        // 4. SIGHUP reloads.
        services.append(.init(
            service: ReloadService(
                configuration: configuration, readConfiguration: readConfiguration, store: store, scheduler: scheduler,
                feeder: feeder, hooks: hooks, link: link, logger: logger),
            serviceName: "configuration reloads"))
        // 3b. The ingest hooks: those running are stopped once the last ingest is reported.
        services.append(.init(service: IngestHooksService(hooks: hooks), serviceName: "ingest hooks"))
        // 3a. The drops that waited for the catalog, retried as soon as it answers again.
        services.append(.init(
            service: ReturnService.catalog(scheduler: scheduler, engine: engine, heart: heart),
            serviceName: "catalog return"))
        // 3a½. The drops that waited for the storage (a bucket), likewise.
        if !store.keepsRenditionsInStateFolder {
            services.append(.init(
                service: ReturnService.storage(scheduler: scheduler, engine: engine, pulse: storagePulse),
                serviceName: "storage return"))
        }
        // 3. The ingest workers: no drop is handed out any more, those in flight finish.
        services.append(.init(service: workers, serviceName: "ingest workers"))
        // 2. The watcher and the rescans: no new drop is seen.
        services.append(.init(service: WatchingService(feeder: feeder), serviceName: "inbox watcher"))
        // 1. READY=1 at start; first to hear of the shutdown: STOPPING=1.
        services.append(.init(service: announcer, serviceName: "systemd readiness"))
        var group = ServiceGroupConfiguration(
            services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        // The contract's bound on a shutdown: past it, what still runs is cancelled (an ingest
        // not yet committed is redone after the next start), well before systemd's SIGKILL.
        group.maximumGracefulShutdownDuration = Self.maximumGracefulShutdownDuration
        return ServiceGroup(configuration: group)
    }

    /// How long a graceful shutdown (SIGTERM, SIGINT) may take before what still runs is
    /// cancelled: below the unit's `TimeoutStopSec=30s`, after which systemd kills.
    public static let maximumGracefulShutdownDuration = Duration.seconds(20)

    /// One ingest worker: takes a settled drop and prepares it (read, hash, decode, write) on a
    /// blocking thread, then hands it to the group committer and takes the next drop at once;
    /// each outcome is reported once its commit is durable. While no drop is ready it makes
    /// the thumbnails `rethumb` queued, one at a time. The last work done before the workers
    /// go idle gives the memory the photos freed back to the system (see
    /// ``MemoryBudget/keepFreedMemoryUntilReturned()``).
    static func runWorker(
        scheduler: DropScheduler, engine: IngestEngine, pool: IngestThreads, committer: GroupCommitter,
        events: EventBroadcaster, handler: ControlRequestHandler, rethumbing: Rethumbing, metrics: DaemonMetrics? = nil
    ) async {
        await withDiscardingTaskGroup { commits in
            while let work = await scheduler.take() {
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
                        await returnFreedMemoryIfIdle(scheduler, pool)
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
                    await returnFreedMemoryIfIdle(scheduler, pool)
                case .readyToCommit(let prepared):
                    commits.addTask {
                        let outcome = await committer.commit(prepared)
                        metrics?.record(outcome, after: ContinuousClock.now - started)
                        await report(job, outcome, scheduler: scheduler, events: events, handler: handler)
                        await returnFreedMemoryIfIdle(scheduler, pool)
                    }
                }
            }
        }
    }

    /// Once no worker holds a drop (the burst is over, or a single drop is done), the memory
    /// the photos freed goes back to the system, on a blocking thread.
    private static func returnFreedMemoryIfIdle(_ scheduler: DropScheduler, _ pool: IngestThreads) async {
        guard await scheduler.workersAreIdle else { return }
        await pool.run { MemoryBudget.returnFreeMemoryToTheSystem() }
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
    /// the catalog (``Pulse``: within its deadline, else the last count), its pool of
    /// connections (PostgreSQL) and the memory budget at each scrape.
    static func galleryMetrics(
        _ metrics: DaemonMetrics, scheduler: DropScheduler, pulse: Pulse, memory: MemoryBudget,
        pool: (any CatalogPoolReporting)? = nil
    ) -> GalleryMetrics {
        GalleryMetrics(factory: metrics.factory, contentType: DaemonMetrics.contentType) {
            let counters = await scheduler.counters
            let reading = await pulse.read()
            let utensils: Int? = switch reading {
            case .success(.answered(let count)): count
            case .success(.unanswered(let lastCount, _, _)): lastCount
            case .failure: nil
            }
            let downSince: Date? = if case .success(.unanswered(_, let since, _)) = reading { since } else { nil }
            let usage = memory.usage
            return metrics.exposition(DaemonMetrics.Sample(
                queued: counters.queued, inFlight: counters.inFlight, utensils: utensils, catalogDownSince: downSince,
                memoryHeldBytes: usage.heldBytes, memoryBudgetBytes: memory.bytes, memoryWaits: usage.waits,
                catalogPool: pool?.poolReading))
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

}
