import Foundation
import Testing
@testable import UtensilConfig

/// A value per key that parses as text but is not acceptable (from the environment or a flag).
private let badText: [ConfigKey: String] = [
    .inbox: "srv/inbox", .rejected: "rejected", .stateDir: "var/lib/utensild", .controlSocket: "control.sock",
    .socketMode: "0990", .workers: "many", .thumbnailSize: "15", .thumbnailQuality: "101",
    .maxFileBytes: "0", .maxPixels: "-5", .memoryBudget: "1048576", .duplicateNames: "Reject", .duplicateContent: "maybe", .nearDuplicates: "Warn", .trashDays: "-1",
    .settleSeconds: "-1", .watch: "fanotify", .rescanSeconds: "0", .logLevel: "verbose", .logFormat: "JSON",
    .webListen: "localhost", .webUsersFile: "web-users", .webHosts: "photos.example.org:443",
    .onIngest: "hooks/on-ingest", .onReject: "/nonexistent/on-reject", .hookTimeoutSeconds: "0",
    .hostName: "kitchen_1", .catalog: "mysql://utensil@db/utensils", .catalogPasswordFile: "catalog-password",
    .storage: "s3://B", .storageEndpoint: "s3.example.org", .storageRegion: "US East", .storageCredentialsFile: "storage-credentials",
]

@Suite struct ErrorTests {
    @Test(arguments: ConfigKey.allCases)
    func aBooleanIsTheWrongTypeForEveryKey(key: ConfigKey) throws {
        let folder = try TemporaryFolder()
        let error = try #require(try loadError(toml: "\(key.rawValue) = true\n", in: folder))
        guard case .wrongType(key, .file(path: folder.file("utensild.toml")), _, "a boolean") = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(error.description.contains(key.rawValue))
        #expect(error.description.contains(folder.file("utensild.toml")))
        #expect(!error.description.contains("\n"))
    }

    @Test(arguments: ConfigKey.allCases)
    func aBadEnvironmentValueNamesKeyAndVariable(key: ConfigKey) throws {
        let folder = try TemporaryFolder()
        let value = try #require(badText[key])
        let error = try #require(try loadError(environment: [key.environmentName: value], in: folder))
        #expect(error.key == key)
        #expect(error.source == .environment(name: key.environmentName))
        guard case .invalidValue = error else { Issue.record("unexpected \(error)"); return }
        #expect(error.description.hasPrefix(key.rawValue + " = "))
        #expect(error.description.contains(key.environmentName))
    }

    @Test(arguments: ConfigKey.allCases)
    func aBadFlagValueNamesKeyAndFlag(key: ConfigKey) throws {
        let folder = try TemporaryFolder()
        let value = try #require(badText[key])
        let error = try #require(try loadError(flags: [key: value], in: folder))
        #expect(error.key == key)
        #expect(error.source == .flag(name: "--" + key.flagName))
        #expect(error.description.contains("--" + key.flagName))
    }

    @Test(arguments: [
        ("workers = \"4\"", ConfigKey.workers, "a string"),
        ("thumbnail_size = 180.0", .thumbnailSize, "a floating-point number"),
        ("inbox = 5", .inbox, "an integer"),
        ("log_level = [\"info\"]", .logLevel, "an array"),
        ("settle_seconds = \"2\"", .settleSeconds, "a string"),
        ("socket_mode = 6.6", .socketMode, "a floating-point number"),
        ("watch = { mode = \"poll\" }", .watch, "a table"),
        ("max_pixels = 1979-05-27", .maxPixels, "a date"),
    ])
    func wrongTypesInTheFile(toml: String, key: ConfigKey, found: String) throws {
        let folder = try TemporaryFolder()
        let error = try #require(try loadError(toml: toml, in: folder))
        guard case .wrongType(key, _, _, found) = error else { Issue.record("unexpected \(error)"); return }
        #expect(error.description.contains("found \(found)"))
    }

    @Test(arguments: [
        ("workers = 257", ConfigKey.workers), ("workers = -1", .workers),
        ("thumbnail_size = 15", .thumbnailSize), ("thumbnail_size = 4097", .thumbnailSize),
        ("thumbnail_quality = 0", .thumbnailQuality), ("thumbnail_quality = 101", .thumbnailQuality),
        ("max_file_bytes = 0", .maxFileBytes), ("max_pixels = 0", .maxPixels),
        ("settle_seconds = -0.5", .settleSeconds), ("settle_seconds = 3601", .settleSeconds),
        ("settle_seconds = nan", .settleSeconds), ("rescan_seconds = 0", .rescanSeconds),
        ("rescan_seconds = inf", .rescanSeconds), ("rescan_seconds = 86401", .rescanSeconds),
        ("socket_mode = 0o1000", .socketMode), ("socket_mode = \"01000\"", .socketMode),
        ("duplicate_names = \"Reject\"", .duplicateNames), ("duplicate_content = \"\"", .duplicateContent),
        ("near_duplicates = \"allow\"", .nearDuplicates),
        ("watch = \"fanotify\"", .watch), ("log_level = \"warn\"", .logLevel), ("log_format = \"text\"", .logFormat),
    ])
    func outOfRangeOrUnknownChoice(toml: String, key: ConfigKey) throws {
        let folder = try TemporaryFolder()
        let error = try #require(try loadError(toml: toml, in: folder))
        guard case .invalidValue(key, .file(path: folder.file("utensild.toml")), _, _) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(error.description.hasPrefix(key.rawValue + " = "))
    }

    @Test(arguments: [ConfigKey.inbox, .rejected, .stateDir, .controlSocket])
    func relativePathsAreRejected(key: ConfigKey) throws {
        let folder = try TemporaryFolder()
        for (path, words) in [("srv/x", "relative path"), ("~/x", "relative path"), ("./x", "relative path"),
                              ("/a/../b", "\"..\""), ("", "empty"), ("/", "root folder")] {
            let error = try #require(try loadError(toml: "\(key.rawValue) = \(TOMLText.quoted(path))", in: folder))
            guard case .invalidValue(key, _, _, let problem) = error else { Issue.record("unexpected \(error)"); continue }
            #expect(problem.contains(words), "\(path): \(problem)")
        }
    }

    @Test func unknownKeysInTheFileAreNamedWithASuggestion() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("utensild.toml")
        #expect(try loadError(toml: "thumbnail-size = 200", in: folder)
            == .unknownKey("thumbnail-size", source: .file(path: path), suggestion: "\"thumbnail_size\""))
        #expect(try loadError(toml: "worker = 2", in: folder)
            == .unknownKey("worker", source: .file(path: path), suggestion: "\"workers\""))
        let table = try #require(try loadError(toml: "[server]\nport = 1\n", in: folder))
        #expect(table == .unknownKey("server", source: .file(path: path), suggestion: nil))
        #expect(table.description.contains("unknown key \"server\""))
        #expect(table.description.contains("known keys are inbox, rejected, state_dir"))
        #expect(table.description.contains(path))
    }

    @Test func unknownUtensildEnvironmentVariablesAreErrors() throws {
        let folder = try TemporaryFolder()
        let error = try #require(try loadError(environment: ["UTENSILD_THUMBNAIL_SIZ": "200"], in: folder))
        #expect(error == .unknownKey("UTENSILD_THUMBNAIL_SIZ", source: .environment(name: "UTENSILD_THUMBNAIL_SIZ"),
                                     suggestion: "UTENSILD_THUMBNAIL_SIZE"))
        #expect(error.description.contains("UTENSILD_THUMBNAIL_SIZ "))
        #expect(error.description.contains("did you mean UTENSILD_THUMBNAIL_SIZE?"))
        let other = try #require(try loadError(environment: ["UTENSILD_COLOUR": "red"], in: folder))
        #expect(other.description.contains("UTENSILD_INBOX"))
    }

    @Test func emptyAndMultiLineEnvironmentValuesStayOneLine() throws {
        let folder = try TemporaryFolder()
        let empty = try #require(try loadError(environment: ["UTENSILD_WORKERS": ""], in: folder))
        #expect(empty.key == .workers)
        let broken = try #require(try loadError(environment: ["UTENSILD_INBOX": "/srv/in\nbox"], in: folder))
        #expect(broken.key == .inbox)
        #expect(!broken.description.contains("\n"))
        #expect(broken.description.contains("\"/srv/in\\nbox\""))
    }

    @Test func syntaxErrorsGiveFileLineAndColumn() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("utensild.toml")
        let error = try #require(try loadError(toml: "workers = 2\n\nthumbnail_size = = 3\n", in: folder))
        guard case .syntaxError(path, 3, let column, let message) = error else { Issue.record("unexpected \(error)"); return }
        #expect(column > 0 && !message.isEmpty)
        #expect(error.description.hasPrefix("configuration file \"\(path)\", line 3, column \(column): TOML syntax error: "))
        #expect(!error.description.contains("\n"))

        let twice = try #require(try loadError(toml: "workers = 1\nworkers = 2\n", in: folder))
        guard case .syntaxError(_, 2, _, _) = twice else { Issue.record("unexpected \(twice)"); return }
    }

    @Test func missingNamedFileIsAnErrorButAMissingDefaultFileMeansDefaults() throws {
        let folder = try TemporaryFolder()
        let missing = folder.file("nope.toml")
        #expect(throws: ConfigurationError.fileNotFound(path: missing)) {
            try ConfigurationLoader.load(file: missing, defaultFile: folder.file("absent.toml"), environment: [:], flags: [:])
        }
        #expect(ConfigurationError.fileNotFound(path: missing).description
            == "configuration file \"\(missing)\" does not exist; create it or name an existing file")
        #expect(try ConfigurationLoader.load(file: nil, defaultFile: missing, environment: [:], flags: [:]) == .defaults)

        let present = try folder.write("workers = 5", to: "default.toml")
        #expect(try ConfigurationLoader.load(file: nil, defaultFile: present, environment: [:], flags: [:]).workers == 5)
        #expect(try load(toml: "", in: folder) == .defaults)
        #expect(try load(toml: "# only a comment\n", in: folder) == .defaults)
    }

    @Test func unreadableFilesAreNamed() throws {
        let folder = try TemporaryFolder()
        let directory = folder.file("dir.toml")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        #expect(throws: ConfigurationError.fileUnreadable(path: directory, reason: "it is not a regular file")) {
            try ConfigurationLoader.load(file: directory, environment: [:], flags: [:])
        }
        let dangling = folder.file("dangling.toml")
        try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: folder.file("gone"))
        let error = try #require(throws: ConfigurationError.self) {
            try ConfigurationLoader.load(file: nil, defaultFile: dangling, environment: [:], flags: [:])
        }
        guard case .fileUnreadable(dangling, _) = error else { Issue.record("unexpected \(error)"); return }

        let latin1 = folder.file("latin1.toml")
        try Data("inbox = \"/caf\u{E9}\"".data(using: .isoLatin1)!).write(to: URL(fileURLWithPath: latin1))
        #expect(throws: ConfigurationError.fileUnreadable(path: latin1, reason: "it is not UTF-8 text")) {
            try ConfigurationLoader.load(file: latin1, environment: [:], flags: [:])
        }
    }

    @Test func foldersThatSwallowEachOtherAreRejected() throws {
        let folder = try TemporaryFolder()
        let cases: [([ConfigKey: String], ConfigKey)] = [
            ([.inbox: "/srv/in", .rejected: "/srv/in/rejected"], .rejected),
            ([.inbox: "/srv/in", .rejected: "/srv/in"], .rejected),
            ([.inbox: "/srv/in", .stateDir: "/srv/in/state"], .stateDir),
            ([.inbox: "/srv/in", .controlSocket: "/srv/in/c.sock"], .controlSocket),
            ([.inbox: "/srv/rejected/in", .rejected: "/srv/rejected"], .rejected),
            ([.rejected: "/srv/rejected", .stateDir: "/srv/rejected/state"], .stateDir),
            ([.inbox: "/var/lib/utensild/originals/in"], .inbox),
        ]
        for (flags, key) in cases {
            let error = try #require(try loadError(flags: flags, in: folder))
            #expect(error.key == key, "\(flags): \(error)")
        }
        // Beside each other, or rejected and inbox under state_dir, is fine.
        let fine = try load(flags: [.inbox: "/var/lib/utensild/inbox", .controlSocket: "/var/lib/utensild/c.sock"], in: folder)
        #expect(fine.rejected == "/var/lib/utensild/rejected")
    }

    @Test func socketPathsLongerThanSunPathAreRejected() throws {
        let folder = try TemporaryFolder()
        let fits = "/" + String(repeating: "s", count: 106)
        #expect(try load(flags: [.controlSocket: fits], in: folder).controlSocket == fits)
        let error = try #require(try loadError(flags: [.controlSocket: fits + "s"], in: folder))
        #expect(error.key == .controlSocket)
        #expect(error.description.contains("at most 107"))
    }

    @Test func aValueOverriddenByAFlagIsStillChecked() throws {
        let folder = try TemporaryFolder()
        let error = try loadError(toml: "workers = 999", flags: [.workers: "2"], in: folder)
        #expect(error?.key == .workers)
        #expect(error?.source == .file(path: folder.file("utensild.toml")))
    }
}
