extension UtensilConfiguration {
    /// The value of `key` as a TOML literal: `"/srv/utensils/inbox"`, `"0660"`, `180`, `2.0`, `"reject"`.
    public func renderedValue(of key: ConfigKey) -> String {
        switch key {
        case .inbox: TOMLText.quoted(inbox)
        case .rejected: TOMLText.quoted(rejected)
        case .stateDir: TOMLText.quoted(stateDir)
        case .controlSocket: TOMLText.quoted(controlSocket)
        case .socketMode: TOMLText.mode(socketMode)
        case .workers: String(workers)
        case .thumbnailSize: String(thumbnailSize)
        case .thumbnailQuality: String(thumbnailQuality)
        case .maxFileBytes: String(maxFileBytes)
        case .maxPixels: String(maxPixels)
        case .memoryBudget: String(memoryBudget)
        case .duplicateNames: TOMLText.quoted(duplicateNames.rawValue)
        case .duplicateContent: TOMLText.quoted(duplicateContent.rawValue)
        case .nearDuplicates: TOMLText.quoted(nearDuplicates.rawValue)
        case .trashDays: TOMLText.float(trashDays)
        case .settleSeconds: TOMLText.float(settleSeconds)
        case .watch: TOMLText.quoted(watch.rawValue)
        case .rescanSeconds: TOMLText.float(rescanSeconds)
        case .logLevel: TOMLText.quoted(logLevel.rawValue)
        case .logFormat: TOMLText.quoted(logFormat.rawValue)
        case .webListen: TOMLText.quoted(webListen.description)
        case .webUsersFile: TOMLText.quoted(webUsersFile)
        case .webHosts: WebHosts.rendered(webHosts)
        case .onIngest: TOMLText.quoted(onIngest)
        case .onReject: TOMLText.quoted(onReject)
        case .hookTimeoutSeconds: TOMLText.float(hookTimeoutSeconds)
        case .hostName: TOMLText.quoted(hostName)
        case .catalog: TOMLText.quoted(catalog.description)
        case .catalogPasswordFile: TOMLText.quoted(catalogPasswordFile)
        case .storage: TOMLText.quoted(storage.description)
        case .storageEndpoint: TOMLText.quoted(storageEndpoint)
        case .storageRegion: TOMLText.quoted(storageRegion)
        case .storageCredentialsFile: TOMLText.quoted(storageCredentialsFile)
        }
    }

    /// The effective configuration as a TOML document (every key, for `--check-config`).
    ///
    /// Each key is preceded by its ``ConfigKey/help`` as a comment; loading the document
    /// gives back an equal configuration.
    public func renderTOML() -> String {
        var out = "# utensild: effective configuration (flags > environment > file > defaults)\n"
        for key in ConfigKey.allCases {
            out += "\n# \(key.help)\n\(key.rawValue) = \(renderedValue(of: key))\n"
        }
        return out
    }
}
