import Logging
import ServiceLifecycle
import UnixSignals
import UtensilConfig
import UtensilStore

/// SIGHUP: re-reads the configuration and applies what can change without a restart — to the
/// one store (duplicate policies, limits, thumbnail quality, log level: every front door sees
/// them at once), the scheduler, the rescans and the hooks — until its turn to stop comes.
struct ReloadService: Service {
    /// The configuration the daemon started with.
    let configuration: UtensilConfiguration
    let readConfiguration: UtensilDaemon.ConfigurationReader
    let store: UtensilStore
    let scheduler: DropScheduler
    let feeder: InboxFeeder
    let hooks: HookRunner
    let link: SystemdLink
    let logger: Logger

    func run() async {
        await cancelWhenGracefulShutdown {
            let signals = await UnixSignalsSequence(trapping: .sighup)
            var current = configuration
            for await _ in signals {
                link.send { try $0.reloading() }
                current = await reload(from: current)
                link.send { try $0.ready() }
            }
        }
    }

    /// Applies one reload; returns the configuration now in force.
    private func reload(from current: UtensilConfiguration) async -> UtensilConfiguration {
        do {
            let fresh = try readConfiguration()
            let changed = current.changedKeys(comparedTo: fresh)
            let needRestart = changed.filter { !$0.isReloadable }
            var applied = current
            for key in changed where key.isReloadable { applied.take(key, from: fresh) }
            var reloadLogger = logger
            reloadLogger.logLevel = Logger.Level(rawValue: applied.logLevel.rawValue) ?? .info
            store.reload(IngestSettings(applied), logger: reloadLogger)
            await scheduler.setSettleSeconds(applied.settleSeconds)
            feeder.setRescanSeconds(applied.rescanSeconds)
            hooks.update(HookRunner.Settings(applied))
            let appliedNames = changed.filter(\.isReloadable).map(\.rawValue)
            let summary = appliedNames.isEmpty ? "nothing changed" : "applied " + appliedNames.joined(separator: ", ")
            let restart = needRestart.isEmpty
                ? "" : "; a restart is needed for " + needRestart.map(\.rawValue).joined(separator: ", ")
            logger.notice("Reloaded the configuration: \(summary)\(restart)")
            return applied
        } catch {
            logger.error("Reloading the configuration failed, keeping the current one: \(error)")
            await scheduler.noteError("configuration reload failed: \(error)")
            return current
        }
    }
}
