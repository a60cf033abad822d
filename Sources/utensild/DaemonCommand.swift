import Logging
import ServiceLifecycle
import UtensilConfig
import UtensilDaemon
import UtensilIngest

/// `utensild` without `--oneshot`: the daemon in the foreground, under a `ServiceGroup` that
/// turns SIGTERM and SIGINT into a graceful shutdown (exit 0).
struct DaemonCommand {
    let configuration: UtensilConfiguration
    let logger: Logger
    let readConfiguration: UtensilDaemon.ConfigurationReader

    func run() async throws {
        let lock = try StateLock(stateDirectory: configuration.stateDir)
        let daemon = UtensilDaemon(configuration: configuration, readConfiguration: readConfiguration, logger: logger)
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [.init(service: daemon, successTerminationBehavior: .gracefullyShutdownGroup)],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger))
        try await group.run()
        withExtendedLifetime(lock) {}
    }
}
