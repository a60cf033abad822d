extension UtensilConfiguration {
    /// Sets `key` from `raw`, checked against the key's type and range.
    mutating func assign(_ raw: RawSetting, to key: ConfigKey, from source: ConfigurationSource) throws(ConfigurationError) {
        let value = SettingParser(key: key, raw: raw, source: source)
        switch key {
        case .inbox: inbox = try value.absolutePath()
        case .rejected: rejected = try value.absolutePath()
        case .stateDir: stateDir = try value.absolutePath()
        case .controlSocket: controlSocket = try value.socketPath()
        case .socketMode: socketMode = try value.socketMode()
        case .workers: workers = try value.integer(in: Limits.workers, meaning: " (0 means one per CPU core)")
        case .thumbnailSize: thumbnailSize = try value.integer(in: Limits.thumbnailSize)
        case .thumbnailQuality: thumbnailQuality = try value.integer(in: Limits.thumbnailQuality)
        case .maxFileBytes: maxFileBytes = try value.integer(in: Limits.positive)
        case .maxPixels: maxPixels = try value.integer(in: Limits.positive)
        case .memoryBudget: memoryBudget = try value.integer(in: Limits.memoryBudget)
        case .duplicateNames: duplicateNames = try value.choice(DuplicateNamePolicy.self)
        case .duplicateContent: duplicateContent = try value.choice(DuplicatePolicy.self)
        case .nearDuplicates: nearDuplicates = try value.choice(NearDuplicatePolicy.self)
        case .settleSeconds:
            settleSeconds = try value.seconds(minimum: 0, allowsMinimum: true, maximum: Limits.settleSecondsMaximum)
        case .trashDays:
            trashDays = try value.decimal(
                minimum: 0, allowsMinimum: true, maximum: Limits.trashDaysMaximum, unit: "days", example: "30 or 0.5")
        case .watch: watch = try value.choice(WatchMode.self)
        case .rescanSeconds:
            rescanSeconds = try value.seconds(minimum: 0, allowsMinimum: false, maximum: Limits.rescanSecondsMaximum)
        case .logLevel: logLevel = try value.choice(LogLevelName.self)
        case .logFormat: logFormat = try value.choice(LogFormat.self)
        case .webListen: webListen = try value.webListen()
        case .webUsersFile: webUsersFile = try value.absolutePath()
        case .webHosts: webHosts = try value.webHosts()
        case .onIngest: onIngest = try value.hookProgram()
        case .onReject: onReject = try value.hookProgram()
        case .hostName: hostName = try value.hostName()
        case .catalog: catalog = try value.catalog()
        case .catalogPasswordFile: catalogPasswordFile = try value.passwordFile()
        case .storage: storage = try value.storage()
        case .storageEndpoint: storageEndpoint = try value.storageEndpoint()
        case .storageRegion: storageRegion = try value.storageRegion()
        case .storageCredentialsFile: storageCredentialsFile = try value.storageCredentialsFile()
        case .hookTimeoutSeconds:
            hookTimeoutSeconds = try value.seconds(minimum: 0, allowsMinimum: false, maximum: Limits.hookTimeoutSecondsMaximum)
        }
    }
}
