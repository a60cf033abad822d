import ArgumentParser
import Foundation
import Logging
import UtensilConfig
import UtensilControlProtocol
import UtensilCore
import UtensilDaemon
import UtensilStore

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
        version: UtensildVersion.current,
        subcommands: [RestoreCommand.self])

    @Option(name: .long, help: "The TOML configuration file (default: \(ConfigurationLoader.defaultFile)).")
    var config: String?

    @Flag(name: .long, help: "Validate and print the effective configuration, then exit (0, or 78 when it is bad); with a PostgreSQL catalog, also connect to it and say what is wrong.")
    var checkConfig = false

    @Flag(name: .long, help: "Reconcile, ingest everything in the inbox now, print one line per drop and a summary, and exit (1 if a drop was left for retry).")
    var oneshot = false

    @Flag(name: .long, help: "Store how systemd says the run ended ($SERVICE_RESULT) for the next start, then exit: the unit's ExecStopPost= runs it.")
    var recordStop = false

    @OptionGroup var keys: ConfigurationFlags

    /// The entry point: the process's memory policy is set first, on the main thread before any
    /// other thread exists (every thread then shares one malloc arena, which the daemon's idle
    /// workers can trim whole: see ``MemoryBudget/keepFreedMemoryUntilReturned()``); then
    /// ArgumentParser parses the command line and runs the command.
    static func main() async {
        MemoryBudget.keepFreedMemoryUntilReturned()
        await main(nil)
    }

    func run() async throws {
        let configuration: UtensilConfiguration
        do {
            configuration = try ConfigurationLoader.load(
                file: config, environment: ProcessInfo.processInfo.environment, flags: keys.values)
            if !checkConfig && !recordStop { try configuration.prepareFolders() }
        } catch {
            FileHandle.standardError.write(Data("utensild: \(error)\n".utf8))
            throw ExitCode(78)
        }
        if checkConfig {
            let environment = ProcessInfo.processInfo.environment
            let catalogLines = try await CatalogSupport.check(configuration, environment: environment)
            let storageLines: [String]
            do {
                storageLines = try await Backends.checkStorage(configuration, environment: environment)
            } catch {
                FileHandle.standardError.write(Data("utensild: \(error)\n".utf8))
                throw ExitCode(78)
            }
            print(configuration.renderTOML(), terminator: "")
            let lines = catalogLines + storageLines
            if !lines.isEmpty { print("\n" + lines.joined(separator: "\n")) }
            return
        }
        if recordStop {
            try Self.recordStop(stateDirectory: configuration.stateDir, as: HostFileNames(sharedAs: configuration.sharedHostName))
            return
        }
        let logger = LogSetup.makeLogger(level: configuration.logLevel, format: configuration.logFormat)
        do {
            if oneshot {
                // A run someone waits for: a PostgreSQL catalog that cannot be reached fails it at once.
                let code = try await CatalogSupport.withBackends(
                    configuration, environment: ProcessInfo.processInfo.environment, logger: logger, waiting: false
                ) { [configuration, logger] openBackends in
                    try await OneShotCommand(configuration: configuration, logger: logger, openBackends: openBackends)
                        .runOnItsOwnThread()
                }
                throw ExitCode(code)
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
            // 78 when a person must change something first (for the daemon, systemd then stops
            // restarting it); 1 for what may mend itself, as `--oneshot`'s drops left for a retry.
            throw ExitCode(StartFailure.exitCode(for: error, oneShot: oneshot))
        }
    }

    /// `--record-stop`: systemd sets `$SERVICE_RESULT` for `ExecStopPost=` (`success`, `signal`,
    /// `oom-kill`, `watchdog`, `timeout`, …); the next start reads it (``LastStop``).
    static func recordStop(stateDirectory: String, as files: HostFileNames) throws {
        guard let result = ProcessInfo.processInfo.environment["SERVICE_RESULT"], !result.isEmpty else {
            FileHandle.standardError.write(Data(
                "utensild: --record-stop is for the unit's ExecStopPost=, where systemd sets SERVICE_RESULT; it is not set here\n".utf8))
            throw ExitCode(64)
        }
        do {
            try LastStop(serviceResult: result).record(in: RawPath(stateDirectory), as: files)
        } catch {
            FileHandle.standardError.write(Data("utensild: cannot record how the run ended: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}
