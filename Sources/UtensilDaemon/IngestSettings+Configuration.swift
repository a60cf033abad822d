import UtensilCodec
import UtensilConfig
import UtensilStore

extension IngestSettings {
    /// The engine's settings from the daemon's configuration.
    public init(_ configuration: UtensilConfiguration) {
        self.init(
            inbox: configuration.inbox, rejected: configuration.rejected, stateDirectory: configuration.stateDir,
            thumbnail: ThumbnailRequest(
                size: configuration.thumbnailSize, quality: configuration.thumbnailQuality,
                maxPixels: configuration.maxPixels),
            maxFileBytes: configuration.maxFileBytes,
            rejectDuplicateNames: configuration.duplicateNames == .reject,
            rejectDuplicateContent: configuration.duplicateContent == .reject,
            trashDays: configuration.trashDays,
            replaceDuplicateNames: configuration.duplicateNames == .replace,
            hostName: configuration.effectiveHostName)
        sharesStateFolder = configuration.sharedHostName != nil
        nearDuplicates = switch configuration.nearDuplicates {
        case .warn: .warn
        case .reject: .reject
        case .off: .off
        }
    }
}

extension UtensilConfiguration {
    /// Takes the value of one key from another configuration (for a reload).
    mutating func take(_ key: ConfigKey, from other: UtensilConfiguration) {
        switch key {
        case .inbox: inbox = other.inbox
        case .rejected: rejected = other.rejected
        case .stateDir: stateDir = other.stateDir
        case .controlSocket: controlSocket = other.controlSocket
        case .socketMode: socketMode = other.socketMode
        case .workers: workers = other.workers
        case .thumbnailSize: thumbnailSize = other.thumbnailSize
        case .thumbnailQuality: thumbnailQuality = other.thumbnailQuality
        case .maxFileBytes: maxFileBytes = other.maxFileBytes
        case .maxPixels: maxPixels = other.maxPixels
        case .memoryBudget: memoryBudget = other.memoryBudget
        case .duplicateNames: duplicateNames = other.duplicateNames
        case .duplicateContent: duplicateContent = other.duplicateContent
        case .nearDuplicates: nearDuplicates = other.nearDuplicates
        case .trashDays: trashDays = other.trashDays
        case .settleSeconds: settleSeconds = other.settleSeconds
        case .watch: watch = other.watch
        case .rescanSeconds: rescanSeconds = other.rescanSeconds
        case .logLevel: logLevel = other.logLevel
        case .logFormat: logFormat = other.logFormat
        case .webListen: webListen = other.webListen
        case .webUsersFile: webUsersFile = other.webUsersFile
        case .webHosts: webHosts = other.webHosts
        case .onIngest: onIngest = other.onIngest
        case .onReject: onReject = other.onReject
        case .hookTimeoutSeconds: hookTimeoutSeconds = other.hookTimeoutSeconds
        case .hostName: hostName = other.hostName
        case .catalog: catalog = other.catalog
        case .catalogPasswordFile: catalogPasswordFile = other.catalogPasswordFile
        case .storage: storage = other.storage
        case .storageEndpoint: storageEndpoint = other.storageEndpoint
        case .storageRegion: storageRegion = other.storageRegion
        case .storageCredentialsFile: storageCredentialsFile = other.storageCredentialsFile
        }
    }
}
