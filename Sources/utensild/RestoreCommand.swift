import ArgumentParser
import Foundation
import Glibc
import Logging
import UtensilConfig
import UtensilCore
import UtensilIngest

/// `utensild restore BACKUP`: loads a backup made by `utensilctl backup` into the configured
/// catalog and state folder, both empty, with the daemon stopped (it takes the state lock).
struct RestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Load a backup made by `utensilctl backup` into the empty catalog and state folder.",
        discussion: """
            Stop utensild first (the state folder is locked while it runs). Every file of the \
            backup is checked against backup.json and the catalog (SQLite's integrity check, a \
            schema this version knows) before anything is installed; a damaged backup is \
            refused, naming the first bad file. Run as root, what it installs belongs to the \
            state folder's owner (the daemon's user). Exit codes: 0 restored, 1 refused or \
            failed, 64 usage, 78 bad configuration.

            Examples:
              sudo utensild restore /var/lib/utensild/backup-2026-11-25
              sudo -u utensil utensild --config /etc/utensild/utensild.toml restore /srv/backup
            """)

    @Argument(help: ArgumentHelp("The backup folder (the DEST of `utensilctl backup`).", valueName: "backup"))
    var backup: String

    @Option(name: .long, help: "The TOML configuration file (default: \(ConfigurationLoader.defaultFile)).")
    var config: String?

    @OptionGroup var keys: ConfigurationFlags
    @ParentCommand var root: UtensildCommand

    func run() throws {
        let configuration: UtensilConfiguration
        var flags = root.keys.values
        flags.merge(keys.values) { _, mine in mine }
        do {
            configuration = try ConfigurationLoader.load(
                file: config ?? root.config, environment: ProcessInfo.processInfo.environment, flags: flags)
            try configuration.prepareFolders()
        } catch {
            throw Self.failure("\(error)", code: 78)
        }
        if let refusal = CatalogSupport.refusal(configuration, for: .restore) { throw Self.failure(refusal, code: 78) }
        var logger = Logger(label: "utensild.restore")
        logger.logLevel = .critical  // The outcome is printed; the daemon's journal is not for this.
        let lock: StateLock
        do {
            lock = try StateLock(stateDirectory: configuration.stateDir, sharedAs: configuration.sharedHostName)
        } catch {
            throw Self.failure("\(error)", code: 1)
        }
        defer { withExtendedLifetime(lock) {} }
        let path = backup.hasPrefix("/") ? backup : FileManager.default.currentDirectoryPath + "/" + backup
        let showProgress = isatty(STDERR_FILENO) == 1
        let summary: RestoreSummary
        do {
            summary = try BackupRestore(settings: IngestSettings(configuration), logger: logger)
                .restore(from: RawPath(path)) { done, total in
                    guard showProgress, done == total || done % 100 == 0 else { return }
                    FileHandle.standardError.write(Data("\rutensild: verified and copied \(done) of \(total) files\u{1B}[K".utf8))
                }
        } catch {
            if showProgress { FileHandle.standardError.write(Data("\n".utf8)) }
            throw Self.failure(error.description, code: 1)
        }
        if showProgress { FileHandle.standardError.write(Data("\n".utf8)) }
        print(
            "Restored \(summary.utensils) utensils (\(summary.trash) in the trash, \(summary.categories) categories) and \(summary.files) files (\(summary.bytes) bytes) into \(configuration.stateDir)"
                + (summary.migrated ? ", the catalog migrated to this version" : "") + ".")
        if summary.missing > 0 {
            print("The backup had no \(summary.missing) thumbnails; once utensild runs, `utensilctl rethumb --missing` makes them.")
        }
        print("Start utensild, then `utensilctl check`.")
    }

    /// Says `message` on standard error; the exit code to throw.
    private static func failure(_ message: String, code: Int32) -> ExitCode {
        FileHandle.standardError.write(Data("utensild: \(message)\n".utf8))
        return ExitCode(code)
    }
}
