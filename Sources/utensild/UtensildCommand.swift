import ArgumentParser
import Foundation
import Logging
import UtensilConfig
import UtensilControlProtocol
import UtensilDaemon

/// `utensild`: the daemon. Runs in the foreground under systemd (`Type=notify`), never forks.
@main
struct UtensildCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "utensild",
        abstract: "Turns photos dropped into an inbox folder into utensils with thumbnails.",
        discussion: """
            Every configuration key can be given in the TOML file, as an environment variable \
            UTENSILD_<KEY> and as a flag --<key-with-dashes>; flags beat environment beat file.
            """,
        version: UtensildVersion.current)

    @Option(name: .long, help: "The TOML configuration file (default: \(ConfigurationLoader.defaultFile)).")
    var config: String?

    @Flag(name: .long, help: "Validate and print the effective configuration, then exit (0, or 78 when it is bad).")
    var checkConfig = false

    @Flag(name: .long, help: "Reconcile, ingest everything in the inbox now, print one line per drop and a summary, and exit (1 if a drop was left for retry).")
    var oneshot = false

    @OptionGroup var keys: ConfigurationFlags

    func run() async throws {
        let configuration: UtensilConfiguration
        do {
            configuration = try ConfigurationLoader.load(
                file: config, environment: ProcessInfo.processInfo.environment, flags: keys.values)
            if !checkConfig { try configuration.prepareFolders() }
        } catch {
            FileHandle.standardError.write(Data("utensild: \(error)\n".utf8))
            throw ExitCode(78)
        }
        if checkConfig {
            print(configuration.renderTOML(), terminator: "")
            return
        }
        let logger = LogSetup.makeLogger(level: configuration.logLevel)
        do {
            if oneshot {
                throw ExitCode(try OneShotCommand(configuration: configuration, logger: logger).run())
            }
            try await DaemonCommand(
                configuration: configuration, logger: logger,
                readConfiguration: { [config, keys] in
                    try ConfigurationLoader.load(
                        file: config, environment: ProcessInfo.processInfo.environment, flags: keys.values)
                }
            ).run()
        } catch let error as ExitCode {
            throw error
        } catch {
            logger.critical("utensild cannot run: \(error)")
            throw ExitCode(1)
        }
    }
}
