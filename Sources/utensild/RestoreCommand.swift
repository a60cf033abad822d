import ArgumentParser
import Foundation
import Glibc
import Logging
import UtensilCatalogPostgres
import UtensilConfig
import UtensilCore
import UtensilDaemon
import UtensilIngest
import UtensilRestore
import UtensilStorage
import UtensilStore

/// `utensild restore BACKUP`: loads a backup made by `utensilctl backup` into the configured
/// catalog and state folder, both empty, with the daemon stopped (it takes the state lock).
struct RestoreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Load a backup made by `utensilctl backup` into the empty catalog and state folder.",
        discussion: """
            Stop utensild first (the state folder is locked while it runs). Every file of the \
            backup is checked against backup.json and the catalog before anything is \
            installed. The catalog is read without running anything in it (its schema must be \
            utensild's) and every row checked under the rules a drop meets (UUID ids, photo \
            extensions, names, categories, dates, sizes, checksums); its rows go into a \
            catalog utensild makes itself. A damaged or tampered backup is refused, naming the \
            first bad file or row. Run as root, what it installs belongs to the state folder's \
            owner (the daemon's user).

            With catalog = "postgresql://…" the backup's rows go into that PostgreSQL \
            catalog, which must hold no utensil (the trash included), in one transaction; \
            this is how a SQLite catalog moves to PostgreSQL (back it up with `utensilctl \
            backup`, configure the PostgreSQL catalog, restore). Stop every utensild using \
            that catalog first.

            With storage = "s3://…" the originals, thumbnails and previews go into that \
            bucket, which must hold none, through the same steps as an ingest (staged, the \
            catalog committed, then put in place, never over an object); this is how a site \
            moves from local folders into a bucket, and a backup taken on a bucket restores \
            onto local folders with storage = "local". Exit codes: 0 restored, 1 refused or \
            failed (also when PostgreSQL or the bucket cannot be reached), 64 usage, 78 bad \
            configuration (the bucket's keys unreadable included).

            Examples:
              sudo utensild restore /var/lib/utensild/backups/2026-11-25
              sudo -u utensil utensild --config /etc/utensild/utensild.toml restore /srv/backup
              sudo utensild --catalog postgresql://utensil@db.example.org/utensils \\
                --catalog-password-file /root/pg-password restore /root/backup
            """)

    @Argument(help: ArgumentHelp("The backup folder (the DEST of `utensilctl backup`).", valueName: "backup"))
    var backup: String

    @Option(name: .long, help: "The TOML configuration file (default: \(ConfigurationLoader.defaultFile)).")
    var config: String?

    @OptionGroup var keys: ConfigurationFlags
    @ParentCommand var root: UtensildCommand

    func run() async throws {
        let configuration: UtensilConfiguration
        var flags = root.keys.values
        flags.merge(keys.values) { _, mine in mine }
        let environment = ProcessInfo.processInfo.environment
        do {
            configuration = try ConfigurationLoader.load(file: config ?? root.config, environment: environment, flags: flags)
            try configuration.prepareFolders()
        } catch {
            throw Self.failure("\(error)", code: 78)
        }
        var logger = Logger(label: "utensild.restore")
        logger.logLevel = .critical  // The outcome is printed; the daemon's journal is not for this.
        let lock: StateLock
        do {
            lock = try StateLock(stateDirectory: configuration.stateDir, sharedAs: configuration.sharedHostName)
        } catch {
            throw Self.failure("\(error)", code: 1)
        }
        defer { withExtendedLifetime(lock) {} }
        let path = RawPath(backup.hasPrefix("/") ? backup : FileManager.default.currentDirectoryPath + "/" + backup)
        let showProgress = isatty(STDERR_FILENO) == 1
        let progress: @Sendable (Int, Int) -> Void = { done, total in
            guard showProgress, done == total || done % 100 == 0 else { return }
            FileHandle.standardError.write(Data("\rutensild: verified and copied \(done) of \(total) files\u{1B}[K".utf8))
        }
        let settings = IngestSettings(configuration)
        let restore = BackupRestore(settings: settings, logger: logger)
        let shownCatalog = "\(configuration.catalog)"
        let shownStorage = "\(configuration.storage)"
        let summary: RestoreSummary
        var into = "\(configuration.stateDir)"
        do {
            // A bucket: the renditions go through the storage seam, the catalog wherever it is.
            let bucket: (any RenditionStorage)? = switch configuration.storage {
            case .local: nil
            case .s3: try Backends.storage(configuration, settings: settings, environment: environment)
            }
            summary = try await CatalogSupport.withCatalog(configuration, environment: environment, logger: logger, waiting: false) {
                catalog, _ in
                if let bucket {
                    return try await restore.restore(
                        from: path, into: catalog, shownAs: shownCatalog, storage: bucket, shownAs: shownStorage, progress: progress)
                }
                guard let catalog else { return try restore.restore(from: path, progress: progress) }
                return try await restore.restore(from: path, into: catalog, shownAs: shownCatalog, progress: progress)
            }
            switch (configuration.catalog, bucket) {
            case (.postgres, nil): into = "the catalog \(shownCatalog) and \(configuration.stateDir)"
            case (.postgres, _): into = "the catalog \(shownCatalog) and the storage \(shownStorage)"
            case (_, nil): break
            default: into = "\(configuration.stateDir) and the storage \(shownStorage)"
            }
        } catch {
            if showProgress { FileHandle.standardError.write(Data("\n".utf8)) }
            switch error {
            case let error as RestoreError: throw Self.failure(error.description, code: 1)
            case let error as CatalogPasswordError: throw Self.failure("\(error)", code: 78)
            case let problem as PostgresCatalogProblem:
                throw Self.failure("catalog: \(problem)", code: StartFailure.exitCode(for: problem))
            case let error as StorageChoiceError: throw Self.failure("\(error)", code: 78)
            default: throw Self.failure("\(error)", code: 1)
            }
        }
        if showProgress { FileHandle.standardError.write(Data("\n".utf8)) }
        print(
            "Restored \(summary.utensils) utensils (\(summary.trash) in the trash, \(summary.categories) categories) and \(summary.files) files (\(summary.bytes) bytes) into \(into)"
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
