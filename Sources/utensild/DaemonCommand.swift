import Foundation
import Logging
import ServiceLifecycle
import UtensilConfig
import UtensilDaemon
import UtensilIngest

/// `utensild` without `--oneshot`: the daemon in the foreground, its services in one
/// `ServiceGroup` that turns SIGTERM and SIGINT into a graceful shutdown (exit 0).
struct DaemonCommand {
    let configuration: UtensilConfiguration
    let logger: Logger
    let readConfiguration: UtensilDaemon.ConfigurationReader

    func run() async throws {
        let lock = try StateLock(stateDirectory: configuration.stateDir, sharedAs: configuration.sharedHostName)
        try await CatalogSupport.withBackends(configuration, environment: ProcessInfo.processInfo.environment, logger: logger) {
            [configuration, readConfiguration, logger] openBackends in
            let daemon = UtensilDaemon(
                configuration: configuration, readConfiguration: readConfiguration, logger: logger, openBackends: openBackends)
            try await daemon.makeServiceGroup().run()
        }
        logger.notice("utensild stopped")
        withExtendedLifetime(lock) {}
    }
}
