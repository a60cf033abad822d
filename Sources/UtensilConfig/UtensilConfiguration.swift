/// The effective configuration of utensild: every key, validated.
///
/// Build one with ``ConfigurationLoader/load(file:environment:flags:)``; paths are absolute and normalised.
public struct UtensilConfiguration: Sendable, Equatable {
    public var inbox: String
    public var rejected: String
    public var stateDir: String
    public var controlSocket: String
    /// Permission bits of the control socket (at most `0o777`).
    public var socketMode: UInt32
    /// Parallel ingests; 0 means one per CPU core (see ``effectiveWorkers``).
    public var workers: Int
    public var thumbnailSize: Int
    public var thumbnailQuality: Int
    public var maxFileBytes: Int
    public var maxPixels: Int
    /// Bytes that reading and decoding drops may hold at once, across all workers.
    public var memoryBudget: Int
    public var duplicateNames: DuplicateNamePolicy
    public var duplicateContent: DuplicatePolicy
    /// What to do with a drop that looks like a copy of an existing utensil's photo.
    public var nearDuplicates: NearDuplicatePolicy
    /// Days a deleted utensil stays in the trash; 0 deletes at once.
    public var trashDays: Double
    public var settleSeconds: Double
    public var watch: WatchMode
    public var rescanSeconds: Double
    public var logLevel: LogLevelName
    public var logFormat: LogFormat
    /// Where the web gallery listens, or `.off`.
    public var webListen: WebListen
    /// The web users file: `name:bcrypt-hash` lines.
    public var webUsersFile: String
    /// Host header names the gallery answers to besides its own (lower case, no port).
    public var webHosts: [String]
    /// The program run after each ingest (`""`: none): an absolute path to an executable file.
    public var onIngest: String
    /// The program run after each rejection (`""`: none).
    public var onReject: String
    /// How long a hook may run before it is stopped.
    public var hookTimeoutSeconds: Double
    /// This host's name; `""` means the machine's (see ``effectiveHostName``).
    public var hostName: String
    /// Where the catalog lives: SQLite in `state_dir`, or a PostgreSQL database.
    public var catalog: CatalogLocation
    /// The file holding the PostgreSQL password (`""`: none; see ``catalogPasswordSource(environment:)``).
    public var catalogPasswordFile: String
    /// Where originals, thumbnails, previews and grid squares live.
    public var storage: StorageLocation
    /// The S3 API's base URL (`""`: none; required with an `s3://` storage).
    public var storageEndpoint: String
    /// The region requests to the bucket are signed for.
    public var storageRegion: String
    /// The file with the bucket's keys (`""`: the systemd credential, else the environment).
    public var storageCredentialsFile: String

    /// The built-in defaults of the contract.
    public static let defaults = UtensilConfiguration(
        inbox: "/srv/utensils/inbox",
        rejected: "/srv/utensils/rejected",
        stateDir: "/var/lib/utensild",
        controlSocket: "/run/utensild/control.sock",
        socketMode: 0o660,
        workers: 0,
        thumbnailSize: 180,
        thumbnailQuality: 85,
        maxFileBytes: 104_857_600,
        maxPixels: 100_000_000,
        memoryBudget: 536_870_912,
        duplicateNames: .reject,
        duplicateContent: .reject,
        nearDuplicates: .warn,
        trashDays: 30,
        settleSeconds: 2,
        watch: .auto,
        rescanSeconds: 300,
        logLevel: .info,
        logFormat: .auto,
        webListen: .tcp(host: "127.0.0.1", port: 8180),
        webUsersFile: "/etc/utensild/web-users",
        webHosts: [],
        onIngest: "",
        onReject: "",
        hookTimeoutSeconds: 30,
        hostName: "",
        catalog: .sqlite,
        catalogPasswordFile: "",
        storage: .local,
        storageEndpoint: "",
        storageRegion: "us-east-1",
        storageCredentialsFile: "")

    /// workers == 0 resolved to the number of online CPU cores.
    ///
    /// Precisely: the cores this process may run on (its affinity mask, which systemd's
    /// `CPUAffinity=` and container cpusets narrow), falling back to the online count.
    public var effectiveWorkers: Int { workers == 0 ? CPUCount.usable() : workers }

    /// `host_name`, or where it is `""` the machine's host name made to fit the same rules.
    public var effectiveHostName: String { hostName.isEmpty ? HostName.fitting(MachineHostName.current()) : hostName }

    /// The keys whose values differ between `self` and `other`, in contract order.
    ///
    /// On reload, a changed key that is not ``ConfigKey/isReloadable`` needs a restart.
    public func changedKeys(comparedTo other: UtensilConfiguration) -> [ConfigKey] {
        ConfigKey.allCases.filter { renderedValue(of: $0) != other.renderedValue(of: $0) }
    }
}
