import Foundation
import Logging
import ServiceLifecycle
import UtensilIngest
import UtensilMetrics

/// Says READY=1 once every part is built and the start-up scan is queued, and STOPPING=1 as
/// soon as a shutdown begins (it is the first service told).
struct Announcer: Service {
    let link: SystemdLink
    let logger: Logger
    let ready: @Sendable () -> Void

    func run() async {
        ready()
        try? await gracefulShutdown()
        link.send { try $0.stopping(status: "Stopping: finishing the ingests in flight") }
        logger.notice("Stopping: no new drops are taken; ingests in flight finish first")
    }
}

/// The inbox watcher and the periodic rescans (`InboxFeeder`), until a shutdown stops them:
/// the watcher is stopped and the rescans' wait is cancelled.
struct WatchingService: Service {
    let feeder: InboxFeeder

    func run() async {
        await withGracefulShutdownHandler {
            await cancelWhenGracefulShutdown { await feeder.run() }
        } onGracefulShutdown: {
            feeder.stop()
        }
    }
}

/// The ingest workers and the settle timer that feeds them. On shutdown the scheduler hands
/// out nothing more; the ingests in flight finish and commit, then the event followers are
/// told the stream has ended.
struct IngestWorkers: Service {
    let count: Int
    let scheduler: DropScheduler
    let engine: IngestEngine
    let pool: IngestThreads
    let committer: GroupCommitter
    let events: EventBroadcaster
    let handler: ControlRequestHandler
    let rethumbing: Rethumbing
    let metrics: DaemonMetrics?

    func run() async {
        await withDiscardingTaskGroup { group in
            // Stops the scheduler when this service's turn to shut down comes (or the group
            // is cancelled): the workers then take what they hold to the end, and return.
            group.addTask {
                try? await gracefulShutdown()
                await scheduler.stop()
            }
            group.addTask { await UtensilDaemon.runTimer(scheduler) }
            for _ in 0..<count {
                group.addTask {
                    await UtensilDaemon.runWorker(
                        scheduler: scheduler, engine: engine, pool: pool, committer: committer, events: events,
                        handler: handler, rethumbing: rethumbing, metrics: metrics)
                }
            }
        }
        events.finishAll()
    }
}
