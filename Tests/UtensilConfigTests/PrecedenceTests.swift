import Testing
@testable import UtensilConfig

/// Three distinct valid values per key, as typed: for the file, the environment and a flag.
private let samples: [ConfigKey: [String]] = [
    .inbox: ["/f/inbox", "/e/inbox", "/g/inbox"],
    .rejected: ["/f/rejected", "/e/rejected", "/g/rejected"],
    .stateDir: ["/f/state", "/e/state", "/g/state"],
    .controlSocket: ["/f/c.sock", "/e/c.sock", "/g/c.sock"],
    .socketMode: ["0600", "0640", "0666"],
    .workers: ["1", "2", "3"],
    .thumbnailSize: ["100", "200", "300"],
    .thumbnailQuality: ["10", "20", "30"],
    .maxFileBytes: ["1000", "2000", "3000"],
    .maxPixels: ["10", "20", "30"],
    .memoryBudget: ["16777216", "33554432", "67108864"],
    .duplicateNames: ["allow", "reject", "allow"],
    .duplicateContent: ["allow", "reject", "allow"],
    .nearDuplicates: ["reject", "off", "reject"],
    .trashDays: ["0", "7.5", "30"],
    .settleSeconds: ["0.5", "1", "1.5"],
    .watch: ["inotify", "poll", "auto"],
    .rescanSeconds: ["10", "20.5", "30"],
    .logLevel: ["debug", "warning", "error"],
    .logFormat: ["plain", "auto", "json"],
    .webListen: ["127.0.0.1:9000", "unix:/run/w.sock", "[::1]:8080"],
    .webUsersFile: ["/f/users", "/e/users", "/g/users"],
    .webHosts: ["f.example", "e.example", "g.example"],
    .onIngest: ["/bin/true", "/bin/false", "/usr/bin/env"],
    .onReject: ["/bin/false", "/usr/bin/env", "/bin/true"],
    .hookTimeoutSeconds: ["0.5", "1", "90"],
    .hostName: ["kitchen-1", "pantry.example.org", "Cellar"],
    .catalog: ["postgresql://f@db.example:5432/u", "postgresql://e@/u?host=/run/postgresql", "postgresql://g@[::1]:6543/u"],
    .catalogPasswordFile: ["/etc/passwd", "/etc/group", "/etc/hosts"],
    .storage: ["s3://f-bucket/site/photos", "s3://e-bucket", "local"],
    .storageEndpoint: ["https://s3.example.org", "http://127.0.0.1:8333", "http://[::1]:9000"],
    .storageRegion: ["eu-west-3", "auto", "us-east-2"],
    .storageCredentialsFile: ["/etc/hosts", "/etc/passwd", "/etc/group"],
]

private func isNumber(_ key: ConfigKey) -> Bool {
    [.workers, .thumbnailSize, .thumbnailQuality, .maxFileBytes, .maxPixels, .memoryBudget, .settleSeconds, .rescanSeconds, .trashDays, .hookTimeoutSeconds].contains(key)
}

/// `text` as it is written in the TOML file.
private func tomlLiteral(_ key: ConfigKey, _ text: String) -> String {
    isNumber(key) ? text : key == .webHosts ? "[\"\(text)\"]" : "\"\(text)\""
}

/// What ``UtensilConfiguration/renderedValue(of:)`` must give after `text` was applied.
private func rendering(_ key: ConfigKey, _ text: String) -> String {
    switch key {
    case .settleSeconds, .rescanSeconds, .trashDays, .hookTimeoutSeconds: Double(text)!.description
    default: tomlLiteral(key, text)
    }
}

@Suite struct PrecedenceTests {
    @Test func everyKeyHasSamples() {
        #expect(Set(samples.keys) == Set(ConfigKey.allCases))
    }

    @Test(arguments: ConfigKey.allCases)
    func flagBeatsEnvironmentBeatsFileBeatsDefault(key: ConfigKey) throws {
        let folder = try TemporaryFolder()
        let values = try #require(samples[key])
        let toml = "\(key.rawValue) = \(tomlLiteral(key, values[0]))\n"
        let environment = [key.environmentName: values[1]]
        let flags = [key: values[2]]

        let none = try load(in: folder)
        #expect(none == .defaults)
        let file = try load(toml: toml, in: folder)
        #expect(file.renderedValue(of: key) == rendering(key, values[0]))
        let fileAndEnvironment = try load(toml: toml, environment: environment, in: folder)
        #expect(fileAndEnvironment.renderedValue(of: key) == rendering(key, values[1]))
        let all = try load(toml: toml, environment: environment, flags: flags, in: folder)
        #expect(all.renderedValue(of: key) == rendering(key, values[2]))
        let fileAndFlag = try load(toml: toml, flags: flags, in: folder)
        #expect(fileAndFlag.renderedValue(of: key) == rendering(key, values[2]))
        let environmentAlone = try load(environment: environment, in: folder)
        #expect(environmentAlone.renderedValue(of: key) == rendering(key, values[1]))

        // Nothing else moved (except `rejected`, which follows `inbox`).
        let differsFromDefault = rendering(key, values[2]) != UtensilConfiguration.defaults.renderedValue(of: key)
        let expectedChanges = ConfigKey.allCases.filter {
            ($0 == key && differsFromDefault) || (key == .inbox && $0 == .rejected)
        }
        #expect(all.changedKeys(comparedTo: .defaults) == expectedChanges)
    }

    @Test func rejectedFollowsANonDefaultInbox() throws {
        let folder = try TemporaryFolder()
        #expect(try load(toml: "inbox = \"/data/drop/inbox\"", in: folder).rejected == "/data/drop/rejected")
        #expect(try load(flags: [.inbox: "/data/in/"], in: folder).rejected == "/data/rejected")
        #expect(try load(environment: ["UTENSILD_INBOX": "/inbox"], in: folder).rejected == "/rejected")
    }

    @Test func anExplicitRejectedBeatsTheDerivedOneWhateverItsLayer() throws {
        let folder = try TemporaryFolder()
        let config = try load(toml: "rejected = \"/elsewhere/failed\"", flags: [.inbox: "/data/inbox"], in: folder)
        #expect(config.inbox == "/data/inbox")
        #expect(config.rejected == "/elsewhere/failed")
    }

    @Test func environmentNamesAndFlagNamesMapToKeys() throws {
        #expect(ConfigKey.thumbnailSize.environmentName == "UTENSILD_THUMBNAIL_SIZE")
        #expect(ConfigKey.stateDir.flagName == "state-dir")
        #expect(ConfigKey(environmentName: "UTENSILD_THUMBNAIL_SIZE") == .thumbnailSize)
        #expect(ConfigKey(flagName: "--state-dir") == .stateDir)
        #expect(ConfigKey(flagName: "state-dir") == .stateDir)
        for key in ConfigKey.allCases {
            #expect(ConfigKey(environmentName: key.environmentName) == key)
            #expect(ConfigKey(flagName: key.flagName) == key)
            #expect(!key.help.isEmpty && !key.help.contains("\n"))
        }
        let folder = try TemporaryFolder()
        #expect(try load(environment: ["UTENSILD_THUMBNAIL_SIZE": "256"], in: folder).thumbnailSize == 256)
    }

    @Test func otherEnvironmentVariablesAreIgnored() throws {
        let folder = try TemporaryFolder()
        let environment = ["PATH": "/usr/bin", "UTENSIL_SOCKET": "/tmp/x.sock", "utensild_workers": "x", "HOME": "/root"]
        #expect(try load(environment: environment, in: folder) == .defaults)
    }

    @Test func utensildConfigNamesTheFileWhenNoFileIsGiven() throws {
        let folder = try TemporaryFolder()
        let path = try folder.write("workers = 7", to: "from-env.toml")
        let other = try folder.write("workers = 9", to: "named.toml")
        let environment = ["UTENSILD_CONFIG": path]
        let viaEnvironment = try ConfigurationLoader.load(
            file: nil, defaultFile: folder.file("absent.toml"), environment: environment, flags: [:])
        #expect(viaEnvironment.workers == 7)
        let named = try ConfigurationLoader.load(
            file: other, defaultFile: folder.file("absent.toml"), environment: environment, flags: [:])
        #expect(named.workers == 9)
        #expect(throws: ConfigurationError.fileNotFound(path: folder.file("gone.toml"))) {
            try ConfigurationLoader.load(file: nil, defaultFile: folder.file("absent.toml"),
                                         environment: ["UTENSILD_CONFIG": folder.file("gone.toml")], flags: [:])
        }
    }

    @Test func pathsAreNormalised() throws {
        let folder = try TemporaryFolder()
        let config = try load(toml: "inbox = \"/srv//utensils/./inbox/\"", in: folder)
        #expect(config.inbox == "/srv/utensils/inbox")
        #expect(config.rejected == "/srv/utensils/rejected")
    }

    @Test func settleSecondsTakesIntegersAndFractions() throws {
        let folder = try TemporaryFolder()
        #expect(try load(toml: "settle_seconds = 0", in: folder).settleSeconds == 0)
        #expect(try load(toml: "settle_seconds = 0.25", in: folder).settleSeconds == 0.25)
        #expect(try load(flags: [.settleSeconds: ".5"], in: folder).settleSeconds == 0.5)
    }

    @Test func effectiveWorkersResolvesZero() throws {
        var config = UtensilConfiguration.defaults
        config.workers = 3
        #expect(config.effectiveWorkers == 3)
        config.workers = 0
        #expect(config.effectiveWorkers >= 1)
        #expect(CPUCount.allowedCount(inStatus: "Name:\tx\nCpus_allowed:\tff,00000003\nCpus_allowed_list:\t0-1\n") == 10)
    }

    @Test func reloadableKeys() {
        let reloadable = Set(ConfigKey.allCases.filter(\.isReloadable))
        #expect(reloadable == [.maxFileBytes, .maxPixels, .duplicateNames, .duplicateContent, .nearDuplicates,
                               .settleSeconds, .rescanSeconds, .logLevel, .thumbnailQuality,
                               .onIngest, .onReject, .hookTimeoutSeconds])
        #expect(!ConfigKey.hostName.isReloadable)
        var changed = UtensilConfiguration.defaults
        changed.logLevel = .debug
        changed.workers = 4
        #expect(changed.changedKeys(comparedTo: .defaults) == [.workers, .logLevel])
    }
}
