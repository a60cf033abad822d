/// One configuration key. `rawValue` is its name in the TOML file.
public enum ConfigKey: String, CaseIterable, Sendable {
    case inbox
    case rejected
    case stateDir = "state_dir"
    case controlSocket = "control_socket"
    case socketMode = "socket_mode"
    case workers
    case thumbnailSize = "thumbnail_size"
    case thumbnailQuality = "thumbnail_quality"
    case maxFileBytes = "max_file_bytes"
    case maxPixels = "max_pixels"
    case memoryBudget = "memory_budget"
    case duplicateNames = "duplicate_names"
    case duplicateContent = "duplicate_content"
    case nearDuplicates = "near_duplicates"
    case trashDays = "trash_days"
    case settleSeconds = "settle_seconds"
    case watch
    case rescanSeconds = "rescan_seconds"
    case logLevel = "log_level"
    case logFormat = "log_format"
    case webListen = "web_listen"
    case webUsersFile = "web_users_file"
    case webHosts = "web_hosts"
    case onIngest = "on_ingest"
    case onReject = "on_reject"
    case hookTimeoutSeconds = "hook_timeout_seconds"
    case hostName = "host_name"
    case catalog
    case catalogPasswordFile = "catalog_password_file"
    case storage
    case storageEndpoint = "storage_endpoint"
    case storageRegion = "storage_region"
    case storageCredentialsFile = "storage_credentials_file"
}

extension ConfigKey {
    /// Every environment variable starting with this prefix must name a key (or be `UTENSILD_CONFIG`).
    public static let environmentPrefix = "UTENSILD_"

    /// The long flag without its leading dashes: `state-dir` for `--state-dir`.
    public var flagName: String { String(rawValue.map { $0 == "_" ? "-" : $0 }) }

    /// The environment variable: `UTENSILD_STATE_DIR`.
    public var environmentName: String { Self.environmentPrefix + rawValue.uppercased() }

    /// The key whose flag is `name` (with or without the leading `--`).
    public init?(flagName name: String) {
        let bare = name.hasPrefix("--") ? String(name.dropFirst(2)) : name
        guard let key = Self.allCases.first(where: { $0.flagName == bare }) else { return nil }
        self = key
    }

    /// The key whose environment variable is `name`.
    public init?(environmentName name: String) {
        guard let key = Self.allCases.first(where: { $0.environmentName == name }) else { return nil }
        self = key
    }

    /// Whether a running daemon may apply a new value without a restart.
    ///
    /// Paths, the socket, the worker count, the watch mode, `memory_budget` (shared by the
    /// ingests in flight), `thumbnail_size` (every thumbnail is `thumbnail_size` square, so
    /// changing it means regenerating them) and `trash_days` (the purge is scheduled at start)
    /// need a restart, as does `log_format` (the log is set up once). The ingest hooks
    /// (`on_ingest`, `on_reject`, `hook_timeout_seconds`) apply to the events after the reload. The catalog (`catalog`, `catalog_password_file`) and the
    /// storage (`storage` and its endpoint, region and credentials) are opened once, at start.
    public var isReloadable: Bool {
        switch self {
        case .maxFileBytes, .maxPixels, .duplicateNames, .duplicateContent, .nearDuplicates,
             .settleSeconds, .rescanSeconds, .logLevel, .thumbnailQuality,
             .onIngest, .onReject, .hookTimeoutSeconds:
            true
        case .inbox, .rejected, .stateDir, .controlSocket, .socketMode,
             .workers, .thumbnailSize, .watch, .logFormat, .memoryBudget, .trashDays, .webListen, .webUsersFile, .webHosts,
             .hostName, .catalog, .catalogPasswordFile, .storage, .storageEndpoint, .storageRegion, .storageCredentialsFile:
            false
        }
    }

    /// A placeholder for the value in usage texts: `PATH`, `N`, `SECONDS`, `reject|allow` …
    public var valueName: String {
        switch self {
        case .inbox, .rejected, .stateDir, .controlSocket, .webUsersFile, .catalogPasswordFile, .storageCredentialsFile: "PATH"
        case .storage: "local|s3://BUCKET/PREFIX"
        case .storageEndpoint: "URL"
        case .storageRegion: "REGION"
        case .catalog: "sqlite|postgresql://USER@HOST:PORT/DB"
        case .onIngest, .onReject: "PROGRAM"
        case .webListen: "HOST:PORT|unix:PATH"
        case .socketMode: "MODE"
        case .workers, .thumbnailSize, .thumbnailQuality: "N"
        case .maxFileBytes, .memoryBudget: "BYTES"
        case .maxPixels: "PIXELS"
        case .settleSeconds, .rescanSeconds, .hookTimeoutSeconds: "SECONDS"
        case .trashDays: "DAYS"
        case .duplicateNames: DuplicateNamePolicy.allCases.map(\.rawValue).joined(separator: "|")
        case .duplicateContent: DuplicatePolicy.allCases.map(\.rawValue).joined(separator: "|")
        case .nearDuplicates: NearDuplicatePolicy.allCases.map(\.rawValue).joined(separator: "|")
        case .watch: WatchMode.allCases.map(\.rawValue).joined(separator: "|")
        case .logLevel: "LEVEL"
        case .logFormat: LogFormat.allCases.map(\.rawValue).joined(separator: "|")
        case .webHosts: "NAME,NAME…"
        case .hostName: "NAME"
        }
    }
}
