import ArgumentParser
import UtensilConfig

/// One `--<key>` flag per configuration key of the contract.
struct ConfigurationFlags: ParsableArguments {
    @Option(name: .customLong("inbox"), help: "The watched folder people drop photos into.") var inbox: String?
    @Option(name: .customLong("rejected"), help: "Where failed drops go, each with a sidecar.") var rejected: String?
    @Option(name: .customLong("state-dir"), help: "Holds the lock, the SQLite catalog and, with local storage, the photos.") var stateDir: String?
    @Option(name: .customLong("control-socket"), help: "The control socket.") var controlSocket: String?
    @Option(name: .customLong("socket-mode"), help: "Permission bits of the control socket (octal).") var socketMode: String?
    @Option(name: .customLong("workers"), help: "Parallel ingests (0 = one per CPU core).") var workers: String?
    @Option(name: .customLong("thumbnail-size"), help: "Thumbnail edge in pixels.") var thumbnailSize: String?
    @Option(name: .customLong("thumbnail-quality"), help: "JPEG quality of thumbnails.") var thumbnailQuality: String?
    @Option(name: .customLong("max-file-bytes"), help: "Larger drops are rejected (too-large).") var maxFileBytes: String?
    @Option(name: .customLong("max-pixels"), help: "Images with more pixels are rejected before decoding.") var maxPixels: String?
    @Option(name: .customLong("memory-budget"), help: "Bytes that decoding may hold across all workers.") var memoryBudget: String?
    @Option(name: .customLong("duplicate-names"), help: "reject, allow or replace.") var duplicateNames: String?
    @Option(name: .customLong("duplicate-content"), help: "reject or allow.") var duplicateContent: String?
    @Option(name: .customLong("near-duplicates"), help: "warn, reject or off.") var nearDuplicates: String?
    @Option(name: .customLong("trash-days"), help: "Deleted utensils stay in the trash this many days (0 = delete at once).") var trashDays: String?
    @Option(name: .customLong("settle-seconds"), help: "A drop is taken once unchanged this long.") var settleSeconds: String?
    @Option(name: .customLong("watch"), help: "inotify, poll or auto.") var watch: String?
    @Option(name: .customLong("rescan-seconds"), help: "Full rescan of the inbox this often.") var rescanSeconds: String?
    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.") var logLevel: String?
    @Option(name: .customLong("log-format"), help: "auto (journald when it is there), plain or json (one object a line on stderr).") var logFormat: String?
    @Option(name: .customLong("web-listen"), help: "The web gallery: HOST:PORT, unix:PATH, or \"\" for off.") var webListen: String?
    @Option(name: .customLong("web-users-file"), help: "Users who may change things through the web.") var webUsersFile: String?
    @Option(name: .customLong("web-hosts"), help: "Host names the web gallery also answers to, separated by commas.") var webHosts: String?
    @Option(name: .customLong("on-ingest"), help: "A program run after each ingest, the event's JSON on standard input.") var onIngest: String?
    @Option(name: .customLong("on-reject"), help: "A program run after each rejection, the event's JSON on standard input.") var onReject: String?
    @Option(name: .customLong("hook-timeout-seconds"), help: "A hook running longer is stopped (SIGTERM, then SIGKILL).") var hookTimeoutSeconds: String?
    @Option(name: .customLong("host-name"), help: "This host's name (metrics, hooks); \"\" for the machine's.") var hostName: String?
    @Option(name: .customLong("catalog"), help: "sqlite, or a PostgreSQL URL without a password (postgresql://USER@HOST:PORT/DB).") var catalog: String?
    @Option(name: .customLong("catalog-password-file"), help: "A file holding the PostgreSQL password.") var catalogPasswordFile: String?
    @Option(name: .customLong("storage"), help: "Where the photos are kept: local (under the state folder), or an S3-compatible bucket, s3://BUCKET/PREFIX.") var storage: String?
    @Option(name: .customLong("storage-endpoint"), help: "The S3 API's base URL (http://HOST:PORT).") var storageEndpoint: String?
    @Option(name: .customLong("storage-region"), help: "The region requests to the bucket are signed for.") var storageRegion: String?
    @Option(name: .customLong("storage-credentials-file"), help: "A file with AWS_ACCESS_KEY_ID=… and AWS_SECRET_ACCESS_KEY=… lines.") var storageCredentialsFile: String?

    /// The flags given, by key.
    var values: [ConfigKey: String] {
        let pairs: [(ConfigKey, String?)] = [
            (.inbox, inbox), (.rejected, rejected), (.stateDir, stateDir), (.controlSocket, controlSocket),
            (.socketMode, socketMode), (.workers, workers), (.thumbnailSize, thumbnailSize),
            (.thumbnailQuality, thumbnailQuality), (.maxFileBytes, maxFileBytes), (.maxPixels, maxPixels),
            (.memoryBudget, memoryBudget),
            (.duplicateNames, duplicateNames), (.duplicateContent, duplicateContent),
            (.nearDuplicates, nearDuplicates), (.trashDays, trashDays),
            (.settleSeconds, settleSeconds), (.watch, watch), (.rescanSeconds, rescanSeconds), (.logLevel, logLevel),
            (.logFormat, logFormat),
            (.webListen, webListen), (.webUsersFile, webUsersFile), (.webHosts, webHosts),
            (.onIngest, onIngest), (.onReject, onReject), (.hookTimeoutSeconds, hookTimeoutSeconds),
            (.hostName, hostName), (.catalog, catalog), (.catalogPasswordFile, catalogPasswordFile),
            (.storage, storage), (.storageEndpoint, storageEndpoint), (.storageRegion, storageRegion),
            (.storageCredentialsFile, storageCredentialsFile),
        ]
        return Dictionary(uniqueKeysWithValues: pairs.compactMap { key, value in value.map { (key, $0) } })
    }
}
